#!/usr/bin/env bash
# The tail under steady load, by collector and heap, in one run: a broker per variant started by
# `./moses run` with the variant's JVM options (MOSES_JAVA_OPTS), the seed's plan with the
# monitors and the optimizer on, stubs at 5 ms lognormal (sigma 1), wrk at full load on each
# broker in turn (alternated rounds, the others idle), a GC log beside each. Per variant: the
# rounds' median p50 and p99 and p99/p50, the worst round's p99, the longest GC pause, the time
# in pauses per second of load, and the highest RSS; the goal is p99 within 3x p50 with RSS under
# 512 MB.
#
#   loadtest/bench-gc.sh [--rounds 10] [--seconds 30] [--connections 16]
#                        [--variant NAME='JVM options']...
#
# Default variants: parallel (-XX:+UseParallelGC, the default of ./moses run), g1 (-XX:+UseG1GC
# -XX:MaxGCPauseMillis=20), both in -Xmx256m. Needs wrk. Record results in docs/benchmarks/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=10 SECONDS_PER=30 CONNS=16
declare -a NAMES=() OPTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECONDS_PER="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    --variant) NAMES+=("${2%%=*}"); OPTS+=("${2#*=}"); shift 2 ;;
    *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
(( ROUNDS >= 1 && ROUNDS <= 100 && SECONDS_PER >= 5 && SECONDS_PER <= 600 && CONNS >= 1 && CONNS <= 256 )) ||
  { echo "bench-gc: --rounds 1..100, --seconds 5..600, --connections 1..256" >&2; exit 2; }
if (( ${#NAMES[@]} == 0 )); then
  NAMES=(parallel g1) OPTS=("-Xmx256m -XX:+UseParallelGC" "-Xmx256m -XX:+UseG1GC -XX:MaxGCPauseMillis=20")
fi
command -v wrk >/dev/null || { echo "bench-gc: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java 2>/dev/null)"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh"
bench_scratch gc
start_stubs_at_zero
for s in flight hotel weather car attraction payment; do for v in a b; do
  curl -sf -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":5,"distribution":"lognormal","sigma":1}' \
    "http://127.0.0.1:$STUB_PORT/admin/services/$s-$v" >/dev/null
done; done
broker_binding live
declare -a PORT BROKER
for i in "${!NAMES[@]}"; do
  n="${NAMES[$i]}"
  MOSES_JAVA_OPTS="${OPTS[$i]} -Xlog:gc:file=$TMP/gc-$n.log:uptime" "$ROOT/moses" run --port 0 --work "$TMP/work-$n" --db "mem:gc-$n" \
    "${BINDING[@]}" --deploy "$ROOT/bpel-processes/trip-planner" --set "STUBS=http://127.0.0.1:$STUB_PORT" >"$TMP/broker-$n.log" 2>&1 &
  BROKER[i]=$!; PIDS+=($!)
  PORT[i]="$(await_port "$TMP/broker-$n.log" "broker listening")"
done
echo "bench-gc: ${#NAMES[@]} brokers, wrk at $CONNS connections, $ROUNDS rounds of $SECONDS_PER s each, alternated;" \
  "$(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for i in "${!NAMES[@]}"; do echo "  ${NAMES[$i]}: $(tr '\0' ' ' <"/proc/${BROKER[$i]}/cmdline" | grep -oE -- '-(Xmx|Xms|XX:\+Use|XX:Max|XX:New|XX:Soft)[^ ]*' | tr '\n' ' ')"; done
# warm-up: 60 s each (the JIT, the plan, the heap's sizes), not measured
for i in "${!NAMES[@]}"; do wrk_result "http://127.0.0.1:${PORT[$i]}" trip.lua "$CONNS" 60 >/dev/null; done
declare -A P50 P99 RATIO BAD MAXRSS FROM
for i in "${!NAMES[@]}"; do FROM[$i]="$(wc -l <"$TMP/gc-${NAMES[$i]}.log")"; MAXRSS[$i]=0; BAD[$i]=0; done
printf '%6s %-10s %9s %8s %8s %8s %7s %7s\n' round variant 'req/s' 'p50 ms' 'p99 ms' 'p99/p50' errors 'RSS MB'
for ((r = 1; r <= ROUNDS; r++)); do
  for i in "${!NAMES[@]}"; do
    read -r rps p50 p99 non2xx errors _ < <(wrk_result "http://127.0.0.1:${PORT[$i]}" trip.lua "$CONNS" "$SECONDS_PER"; echo)
    m="$(rss_mb "${BROKER[$i]}")"; (( m > MAXRSS[$i] )) && MAXRSS[$i]=$m
    BAD[$i]=$(( BAD[$i] + non2xx + errors ))
    ratio="$(awk -v a="$p99" -v b="$p50" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
    P50[$i]+="$p50 " P99[$i]+="$p99 " RATIO[$i]+="$ratio "
    printf '%6d %-10s %9s %8s %8s %8s %7d %7d\n' "$r" "${NAMES[$i]}" "$rps" "$p50" "$p99" "$ratio" $(( non2xx + errors )) "$m"
  done
done
echo
echo "per variant, over the $ROUNDS measured rounds (medians of the rounds; pauses from the GC log after the warm-up):"
printf '  %-10s %8s %8s %8s %12s %14s %16s %7s %7s\n' variant 'p50 ms' 'p99 ms' 'p99/p50' 'worst p99' 'longest pause' 'pauses ms per s' 'RSS MB' failed
for i in "${!NAMES[@]}"; do
  n="${NAMES[$i]}"
  # -Xlog:gc lines: "[12.345s][info][gc] GC(7) Pause Young (Allocation Failure) 120M->30M(250M) 3.456ms"
  read -r longest total < <(tail -n +"$(( FROM[$i] + 1 ))" "$TMP/gc-$n.log" |
    grep -E 'Pause' | grep -oE '[0-9.]+ms$' | tr -d 'ms' | awk '{s += $1; if ($1 > m) m = $1} END {printf "%.1f %.1f\n", m, s}')
  per_s="$(awk -v t="$total" -v s="$(( ROUNDS * SECONDS_PER ))" 'BEGIN {printf "%.2f", t / s}')"
  worst="$(tr ' ' '\n' <<<"${P99[$i]}" | grep -v '^$' | sort -g | tail -1)"
  verdict="$(awk -v r="$(median <<<"${RATIO[$i]}")" -v m="${MAXRSS[$i]}" 'BEGIN {print (r <= 3 && m < 512) ? "goal met" : "goal NOT met"}')"
  printf '  %-10s %8s %8s %8s %12s %14s %16s %7d %7d  %s\n' "$n" "$(median <<<"${P50[$i]}")" "$(median <<<"${P99[$i]}")" \
    "$(median <<<"${RATIO[$i]}")" "$worst" "$longest" "$per_s" "${MAXRSS[$i]}" "${BAD[$i]}" "$verdict"
done
(( ${#NAMES[@]} < 2 )) || echo "  p99 ratio ${NAMES[1]}/${NAMES[0]}: $(awk -v a="$(median <<<"${P99[1]}")" -v b="$(median <<<"${P99[0]}")" 'BEGIN {printf "%.2f", a / b}')"
