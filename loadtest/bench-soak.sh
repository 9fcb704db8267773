#!/usr/bin/env bash
# A broker started exactly as `./moses run` starts it (its default heap, collector and AOT cache;
# MOSES_JAVA_OPTS adds to them as it does there), stubs at 0 ms, then wrk at full load for a
# while: every step prints throughput, p50/p99, errors and the broker's RSS, so that memory
# growth and the warm-up from a cold start can be read off. Ends with the verdict on the
# RSS goal (under 512 MB throughout, no growth over the second half).
#
#   loadtest/bench-soak.sh [--minutes 10] [--step 30] [--connections 16]
#
# Needs wrk (apt-get install wrk). Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MINUTES=10 STEP=30 CONNS=16
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --step) STEP="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "soak: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java 2>/dev/null)"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh"
bench_scratch soak
start_stubs_at_zero
"$ROOT/moses" run --port 0 --work "$TMP/work" --db "mem:soak" --binding static \
  --deploy "$ROOT/bpel-processes/trip-planner" --seed "$ROOT/loadtest/bench/trip-planner-single-services.yaml" \
  --set "STUBS=http://127.0.0.1:$STUB_PORT" >"$TMP/broker.log" 2>&1 &
BROKER=$!; PIDS+=($BROKER)
PORT="$(await_port "$TMP/broker.log" "broker listening")"
rss() { rss_mb "$BROKER"; }
echo "soak: ./moses run (JVM: $(tr '\0' ' ' <"/proc/$BROKER/cmdline" | grep -oE -- '-(Xmx|XX:\+Use|XX:AOTCache|XX:InlineSmallCode=|XX:[A-Za-z]*Priority[A-Za-z]*=)[^ ]*' | tr '\n' ' '))," \
  "wrk at $CONNS connections for $MINUTES min in ${STEP} s steps; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "soak: broker up, RSS $(rss) MB before the first request"
printf '%6s %9s %8s %8s %7s %8s\n' 'at s' 'req/s' 'p50 ms' 'p99 ms' errors 'RSS MB'
STEPS=$(( MINUTES * 60 / STEP )) MAXRSS=0 BAD=0
declare -a RSS_AT
for ((i = 1; i <= STEPS; i++)); do
  r=($(wrk -t2 -c"$CONNS" -d"$STEP"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "http://127.0.0.1:$PORT" 2>&1 |
    sed -n 's/^RESULT rps=\([0-9.]*\) p50_ms=\([0-9.]*\) p99_ms=\([0-9.]*\) non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3 \4 \5/p'))
  m="$(rss)"; RSS_AT[i]="$m"; (( m > MAXRSS )) && MAXRSS=$m
  BAD=$(( BAD + r[3] + r[4] ))
  printf '%6d %9s %8s %8s %7d %8d\n' $(( i * STEP )) "${r[0]}" "${r[1]}" "${r[2]}" $(( r[3] + r[4] )) "$m"
done
# growth: the highest RSS of the second half against the first half's after its first two
# minutes (the warm-up, when the JIT and the heap grow; RSS then swings by tens of MB as the
# heap's generations resize, so two single samples would mislead). A run whose first half ends
# within those two minutes cannot tell growth from the warm-up: it judges the ceiling alone.
half=$(( STEPS / 2 > 0 ? STEPS / 2 : 1 )) warm=$(( 120 / STEP )) max1=0 max2=0
for ((i = 1; i <= STEPS; i++)); do
  if (( i <= half )); then (( i > warm && RSS_AT[i] > max1 )) && max1=${RSS_AT[i]}
  else (( RSS_AT[i] > max2 )) && max2=${RSS_AT[i]}; fi
done
verdict=OK
if (( warm < half )); then
  growth=$(( max2 - max1 )); said="second half growth $growth MB"
  (( growth <= 32 )) || verdict="NOT MET (RSS grew $growth MB over the second half)"
else
  said="growth not judged (in runs of 4 min or less the first half is warm-up: --minutes 10 judges it)"
fi
(( MAXRSS < 512 )) || verdict="NOT MET (RSS reached $MAXRSS MB)"
(( BAD == 0 )) || verdict="NOT MET ($BAD failed requests)"
echo "soak: max RSS $MAXRSS MB, $said, $BAD failed requests: $verdict"
[[ "$verdict" == OK ]]
