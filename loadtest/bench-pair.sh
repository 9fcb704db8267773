#!/usr/bin/env bash
# Two builds of the broker compared on a busy machine: both loaded AT THE SAME TIME (one wrk
# each, closed loop, trip planner, static binding, stubs at 0 ms), so that whatever else runs
# on the machine weighs on both alike. Per round: each broker's req/s and CPU per request
# (utime+stime from /proc/PID/stat over the round); at the end the medians of the per-round
# ratios B/A. Use it when bench-throughput.sh (which loads its brokers in turns) cannot get a
# quiet machine.
#
#   loadtest/bench-pair.sh --a NAME=CLASSPATH --b NAME=CLASSPATH [--rounds 10] [--seconds 20]
#                          [--connections 8] [--java-opts "..."]
# A classpath "current" means this checkout's build. JAVA_HOME picks the JDK (both brokers).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=10 SECS=20 CONNS=8 A="" B="" JAVA_OPTS_EXTRA=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --a) A="$2"; shift 2 ;;
    --b) B="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    --java-opts) JAVA_OPTS_EXTRA="$2"; shift 2 ;;
    *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -n "$A" && -n "$B" ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench-pair: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
CURRENT="$ROOT/broker-core/target/classes:$(cat "$ROOT/broker-core/target/classpath.txt")"
STUBS_CP="$ROOT/loadtest/target/classes:$(cat "$ROOT/loadtest/target/classpath.txt")"
TMP="$(mktemp -d /tmp/moses-bench-pair.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap "exit 130" INT TERM
await_port() { # log pattern -> port
  local i port
  for ((i = 0; i < 1200; i++)); do
    port="$(grep -oE "$2 on http://[^:]+:[0-9]+" "$1" 2>/dev/null | head -1 | grep -oE '[0-9]+$' || true)"
    [[ -n "$port" ]] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "bench-pair: no '$2' in $1 after 120 s:" >&2; tail -20 "$1" >&2; exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ="$(getconf CLK_TCK)"
"$JAVA" -cp "$STUBS_CP" io.moses.loadtest.stubs.StubServer --port 0 >"$TMP/stubs.log" 2>&1 &
PIDS+=($!)
STUB_PORT="$(await_port "$TMP/stubs.log" "stubs listening")"
for s in flight hotel weather car attraction payment; do for v in a b; do
  curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":0,"distribution":"fixed"}' \
    "http://127.0.0.1:$STUB_PORT/admin/services/$s-$v" >/dev/null
done; done
declare -A PID PORT
NAMES=()
for v in "$A" "$B"; do
  n="${v%%=*}" cp="${v#*=}"
  [[ "$cp" == current ]] && cp="$CURRENT"
  # shellcheck disable=SC2086
  "$JAVA" $JAVA_OPTS_EXTRA -cp "$cp" io.moses.core.Main --port 0 --work "$TMP/work-$n" --db "mem:pair-$n" \
    --binding static --monitors qos,ws,paths --deploy "$ROOT/bpel-processes/trip-planner" \
    --seed "$ROOT/loadtest/bench/trip-planner-single-services.yaml" --set "STUBS=http://127.0.0.1:$STUB_PORT" \
    >"$TMP/broker-$n.log" 2>&1 &
  PID[$n]=$!; PIDS+=($!); NAMES+=("$n")
done
for n in "${NAMES[@]}"; do PORT[$n]="$(await_port "$TMP/broker-$n.log" "broker listening")"; done
a="${NAMES[0]}" b="${NAMES[1]}"
echo "bench-pair: $a vs $b, trip planner, static binding, stubs at 0 ms, $CONNS connections each, $ROUNDS rounds of $SECS s; $("$JAVA" -version 2>&1 | head -1); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
printf '%-5s %10s %10s %12s %12s %9s %9s\n' round "$a req/s" "$b req/s" "$a ms cpu" "$b ms cpu" 'cpu b/a' 'rps b/a'
CPU_RATIOS="" RPS_RATIOS=""
for ((r = 1; r <= ROUNDS; r++)); do
  ta0="$(ticks "${PID[$a]}")"; tb0="$(ticks "${PID[$b]}")"
  wrk -t1 -c"$CONNS" -d"$SECS"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "http://127.0.0.1:${PORT[$a]}" >"$TMP/wrk-$a" 2>&1 &
  wa=$!
  wrk -t1 -c"$CONNS" -d"$SECS"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "http://127.0.0.1:${PORT[$b]}" >"$TMP/wrk-$b" 2>&1 &
  wb=$!
  wait "$wa" "$wb"
  ta1="$(ticks "${PID[$a]}")"; tb1="$(ticks "${PID[$b]}")"
  ra="$(sed -n 's/^RESULT rps=\([0-9.]*\).*/\1/p' "$TMP/wrk-$a")"; rb="$(sed -n 's/^RESULT rps=\([0-9.]*\).*/\1/p' "$TMP/wrk-$b")"
  ea="$(sed -n 's/^RESULT .*non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2/p' "$TMP/wrk-$a")"; eb="$(sed -n 's/^RESULT .*non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2/p' "$TMP/wrk-$b")"
  ca="$(awk -v t=$((ta1 - ta0)) -v hz="$HZ" -v r="$ra" -v s="$SECS" 'BEGIN{printf "%.2f", (r > 0) ? t * 1000 / hz / (r * s) : 0}')"
  cb="$(awk -v t=$((tb1 - tb0)) -v hz="$HZ" -v r="$rb" -v s="$SECS" 'BEGIN{printf "%.2f", (r > 0) ? t * 1000 / hz / (r * s) : 0}')"
  cr="$(awk -v x="$cb" -v y="$ca" 'BEGIN{printf "%.2f", (y > 0) ? x / y : 0}')"; rr="$(awk -v x="$rb" -v y="$ra" 'BEGIN{printf "%.2f", (y > 0) ? x / y : 0}')"
  CPU_RATIOS+="$cr " RPS_RATIOS+="$rr "
  printf '%-5s %10s %10s %12s %12s %9s %9s   errors %s / %s\n' "$r" "$ra" "$rb" "$ca" "$cb" "$cr" "$rr" "${ea:-?}" "${eb:-?}"
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
echo "median of the rounds, $b/$a: CPU per request $(echo "$CPU_RATIOS" | median), throughput $(echo "$RPS_RATIOS" | median)"
echo "median of the last half of the rounds, $b/$a: CPU per request $(echo "$CPU_RATIOS" | tr ' ' '\n' | grep -v '^$' | tail -n $((ROUNDS / 2)) | tr '\n' ' ' | median)"
for n in "${NAMES[@]}"; do echo "rss $n: $(awk '/VmRSS/{printf "%d MB", $2/1024}' "/proc/${PID[$n]}/status")"; done
