#!/usr/bin/env bash
# What an open console costs the broker: CPU time (utime+stime of the broker process) per
# request of each admin API path the console polls, and of a /metrics scrape, measured with a
# bounded curl loop against a broker running the trip planner with its seed and the stubs.
#   loadtest/bench-console.sh [--requests 300]
# The broker's own background work (monitors, probes) is measured idle first and subtracted.
# Prints CPU ms per request and the cost of one console poll (status, plan, concrete-services,
# classes every 2 s); record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=300
[[ "${1:-}" == --requests ]] && N="$2"
"$ROOT/moses" build
TMP="$(mktemp -d)"
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
SP=$(free_port); BP=$(free_port)
"$ROOT/moses" stubs --port "$SP" >"$TMP/stubs.log" 2>&1 & STUBS=$!
"$ROOT/moses" run --port "$BP" --db mem:bench-console --work "$TMP/work" --deploy "$ROOT/bpel-processes/trip-planner" \
  --seed "$ROOT/bpel-processes/trip-planner/seed.yaml" --set "STUBS=http://127.0.0.1:$SP" >"$TMP/broker.log" 2>&1 & BROKER=$!
trap 'kill $BROKER $STUBS 2>/dev/null; wait $BROKER $STUBS 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 120); do grep -q "broker listening" "$TMP/broker.log" && break; sleep 1; done
grep -q "broker listening" "$TMP/broker.log" || { echo "broker did not start: $TMP/broker.log"; exit 1; }
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{print ($14+$15)*1000/hz}' "/proc/$BROKER/stat"; }
AUTH="operator:operator-demo"
# warm-up: the JIT compiles the paths first
for p in admin/status admin/plan admin/concrete-services admin/classes metrics; do
  for _ in $(seq 1 50); do curl -s -o /dev/null -u "$AUTH" "http://127.0.0.1:$BP/$p"; done
done
now_ms() { date +%s%3N; }
b0=$(cpu_ms); t0=$(now_ms); sleep 10; idle=$(awk -v a="$(cpu_ms)" -v b="$b0" -v t="$(( $(now_ms) - t0 ))" 'BEGIN{printf "%.4f", (a-b)/t}')
echo "broker idle (monitors, probes): $(awk -v i="$idle" 'BEGIN{printf "%.1f", i*1000}') CPU ms per second, subtracted below"
printf '%-26s %8s %14s\n' path requests "CPU ms/request"
declare -A cost
for p in admin/status admin/plan admin/concrete-services admin/classes admin/plans?n=30 metrics; do
  before=$(cpu_ms); t0=$(now_ms)
  for _ in $(seq 1 "$N"); do curl -s -o /dev/null -u "$AUTH" "http://127.0.0.1:$BP/$p"; done
  after=$(cpu_ms); t=$(( $(now_ms) - t0 ))
  cost[$p]=$(awk -v a="$after" -v b="$before" -v n="$N" -v i="$idle" -v t="$t" 'BEGIN{c=(a-b-i*t)/n; if (c<0) c=0; printf "%.3f", c}')
  printf '%-26s %8d %14s\n' "$p" "$N" "${cost[$p]}"
done
poll=$(awk -v a="${cost[admin/status]}" -v b="${cost[admin/plan]}" -v c="${cost[admin/concrete-services]}" -v d="${cost[admin/classes]}" \
  'BEGIN{printf "%.2f", a+b+c+d}')
echo "one console poll (status, plan, concrete-services, classes): $poll CPU ms every 2 s = $(awk -v p="$poll" 'BEGIN{printf "%.2f", p/20}') % of one core"
