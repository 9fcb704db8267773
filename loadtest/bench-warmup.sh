#!/usr/bin/env bash
# The warm-up from a cold start, measured so that two variants can be told apart on a noisy
# machine: fresh brokers, started as `./moses run` starts one (static binding, stubs at 0 ms and
# already warm), one after another with the variants alternated, each under wrk at 16
# connections for a while in 10 s steps. Each step prints req/s and the CPU the JIT's compiler
# threads used in it. Each run's steady throughput is the median of its steps from 60 s on; the
# run is warm at the first step within 10 % of it. Ends with, per variant, the median of each
# step over the runs (as a share of the runs' steady throughput) and the median time to warm,
# against the goal (warm within 30 s of the first request), and an SVG plot of every run.
# The JIT's CPU is read from the compiler threads alive at each step's end: a compiler thread
# the JVM started and ended within a step (more than one C2 thread, -XX:CICompilerCount>2 on
# two cores) is not counted.
#
#   loadtest/bench-warmup.sh [--runs 3] [--seconds 120] [--variant NAME=JVM_OPTIONS]...
#                            [--live NAME]... [--plot FILE]
#
# --variant adds a broker started with these options besides ./moses run's (MOSES_JAVA_OPTS),
# e.g. --variant c3=-XX:CICompilerCount=3; the variant "run" (no options) always comes first.
# --live NAME: that variant runs the seed's plan with the monitors and the optimizer on (./moses
# run's default adaptive binding, bpel-processes/trip-planner/seed.yaml) instead of the static
# binding, e.g. --variant live= --live live: the live broker's warm-up beside the static one's.
# --plot: default loadtest/target/warmup.svg. Needs wrk (apt-get install wrk). Record results
# in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=3 SECS=120 PLOT="$ROOT/loadtest/target/warmup.svg"
NAMES=(run); declare -A OPTS=([run]="") LIVE
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --variant) [[ "$2" == *=* && "${2%%=*}" =~ ^[A-Za-z0-9_-]+$ && "${2%%=*}" != run ]] ||
                 { echo "warmup: --variant NAME=JVM_OPTIONS (NAME letters, digits, - or _; not run)" >&2; exit 2; }
               NAMES+=("${2%%=*}"); OPTS[${2%%=*}]="${2#*=}"; shift 2 ;;
    --live) LIVE[$2]=1; shift 2 ;;
    --plot) PLOT="$2"; shift 2 ;;
    *) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ && "$SECS" =~ ^[0-9]+$ ]] && (( SECS >= 70 && SECS % 10 == 0 )) ||
  { echo "warmup: --runs is a count, --seconds a multiple of 10 of at least 70 (steady is judged from 60 s on)" >&2; exit 2; }
for n in "${!LIVE[@]}"; do [[ -n "${OPTS[$n]+set}" ]] || { echo "warmup: --live $n names no variant (run, or one given by --variant)" >&2; exit 2; }; done
command -v wrk >/dev/null || { echo "warmup: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java 2>/dev/null)"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh"
bench_scratch warmup
STEPS=$(( SECS / 10 ))
echo "warmup: ${#NAMES[@]} variant(s) (${NAMES[*]}), $RUNS fresh broker(s) each, alternated; wrk at 16 connections for $SECS s in 10 s steps;" \
  "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ); logs in $TMP"
start_stubs_at_zero
# the stubs' own JIT first, so that the curves are the broker's alone
wrk_result "http://127.0.0.1:$STUB_PORT/stubs/flight-a" stub.lua 16 20 >/dev/null
jit_ticks() { jvm_threads "$1" | cut -d' ' -f1; } # of the compiler threads alive now

declare -A CURVE JIT STEADY WARMAT ERRS
printf '%-8s %3s  %s\n' variant run "req/s in each 10 s step from the first request (JIT CPU s in the step)"
for ((run = 1; run <= RUNS; run++)); do
  for ((k = 0; k < ${#NAMES[@]}; k++)); do
    n="${NAMES[$(( (k + run - 1) % ${#NAMES[@]} ))]}" # each run starts with another variant
    # shellcheck disable=SC2086
    broker_binding "${LIVE[$n]:+live}"
    MOSES_JAVA_OPTS="${OPTS[$n]}" "$ROOT/moses" run --port 0 --work "$TMP/work-$n-$run" --db "mem:warmup" "${BINDING[@]}" \
      --deploy "$ROOT/bpel-processes/trip-planner" --set "STUBS=http://127.0.0.1:$STUB_PORT" >"$TMP/broker-$n-$run.log" 2>&1 &
    pid=$!; PIDS+=("$pid")
    port="$(await_port "$TMP/broker-$n-$run.log" "broker listening")"
    printf '%-8s %3d ' "$n" "$run"
    j0="$(jit_ticks "$pid")" curve="" jit="" bad=0 rss=0
    for ((i = 1; i <= STEPS; i++)); do
      r=($(wrk_result "http://127.0.0.1:$port" trip.lua 16 10))
      j1="$(jit_ticks "$pid")"; js="$(awk -v t=$(( j1 > j0 ? j1 - j0 : 0 )) -v hz="$HZ" 'BEGIN{printf "%.1f", t / hz}')"; j0="$j1"
      curve+="${r[0]%.*} " jit+="$js " bad=$(( bad + r[3] + r[4] ))
      if (( i > 1 )); then stalled "$n" "run $run, $(( i * 10 - 10 ))-$(( i * 10 )) s" 16 "${r[5]:-0}"; fi # a cold broker's first requests wait for the JIT
      m="$(rss_mb "$pid")"; (( m > rss )) && rss=$m
      printf ' %5s (%s)' "${r[0]%.*}" "$js"
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true
    steady="$(echo "$curve" | steady_of_steps)" at="$(echo "$curve" | warm_after "$steady")"
    CURVE[$n]+="$curve|" JIT[$n]+="$jit|" STEADY[$n]+="$steady " WARMAT[$n]+="$at " ERRS[$n]=$(( ${ERRS[$n]:-0} + bad ))
    printf '  steady %s, warm after %s s, RSS %d MB at most%s\n' "${steady%.*}" "$at" "$rss" "$( (( bad > 0 )) && echo ", $bad ERRORS" || true)"
  done
done

echo
echo "medians over the runs: each step as a share of its run's steady throughput; JIT CPU s per step"
printf '%-8s %8s %9s  %s\n' variant 'warm at' steady "$(for ((i = 1; i <= STEPS && i <= 9; i++)); do printf '%7s' "$(( i * 10 ))s"; done)"
for n in "${NAMES[@]}"; do
  ratios="" jits=""
  for ((i = 1; i <= STEPS && i <= 9; i++)); do
    ratios+="$(echo "${CURVE[$n]}" | tr '|' '\n' | grep -v '^$' | paste -d' ' - <(echo "${STEADY[$n]}" | tr ' ' '\n' | grep -v '^$') |
      awk -v i="$i" '{printf "%.2f ", $i / $NF}' | median) "
    jits+="$(echo "${JIT[$n]}" | tr '|' '\n' | grep -v '^$' | awk -v i="$i" '{print $i}' | median) "
  done
  printf '%-8s %7ss %9s  %s\n' "$n" "$(echo "${WARMAT[$n]}" | median)" "$(echo "${STEADY[$n]}" | median | cut -d. -f1)" \
    "$(for x in $ratios; do printf '%6.0f%%' "$(awk -v x="$x" 'BEGIN{print x * 100}')"; done)"
  printf '%-8s %8s %9s  %s\n' "" "" "JIT s" "$(for x in $jits; do printf '%7s' "$x"; done)"
done
for n in "${NAMES[@]}"; do
  at="$(echo "${WARMAT[$n]}" | median)"
  printf 'goal (%s): within 10 %% of steady throughput 30 s after the first request: warm after %s s (runs: %s), %d errors: %s\n' \
    "$n" "$at" "$(echo "${WARMAT[$n]}" | xargs | tr ' ' ',')" "${ERRS[$n]}" \
    "$(awk -v a="$at" -v e="${ERRS[$n]}" 'BEGIN{print (a <= 30 && e == 0) ? "met" : "not met"}')"
done

report_stalls

# The plot: every run's curve, one colour per variant, the goal's 30 s marked.
mkdir -p "$(dirname "$PLOT")"
colours=('#1f77b4' '#d62728' '#2ca02c' '#9467bd' '#ff7f0e' '#8c564b')
max="$(for n in "${NAMES[@]}"; do echo "${CURVE[$n]}" | tr '|' ' '; done | tr ' ' '\n' | grep -v '^$' | sort -g | tail -1)"
{
  echo "<svg xmlns='http://www.w3.org/2000/svg' width='720' height='400' font-family='sans-serif' font-size='12'>"
  echo "<text x='60' y='20'>trip planner req/s in 10 s steps from the first request (wrk, 16 connections), $(date -u +%F)</text>"
  echo "<line x1='60' y1='360' x2='700' y2='360' stroke='black'/><line x1='60' y1='40' x2='60' y2='360' stroke='black'/>"
  echo "<text x='330' y='392'>seconds</text><text x='4' y='36'>req/s</text>"
  # axes' ticks: every 30 s (the goal's 30 s dashed), every 500 req/s
  awk -v secs="$SECS" -v max="$max" 'BEGIN{
    for (t = 30; t <= secs; t += 30) { x = 60 + t * 640 / secs
      printf "<line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"360\" stroke=\"grey\"%s/><text x=\"%.0f\" y=\"375\">%d</text>\n", x, t == 30 ? 40 : 355, x, t == 30 ? " stroke-dasharray=\"4\"" : "", x - 8, t }
    for (v = 0; v <= max; v += 500) printf "<text x=\"22\" y=\"%.0f\">%d</text>\n", 364 - v * 320 / max, v }'
  for ((k = 0; k < ${#NAMES[@]}; k++)); do
    n="${NAMES[$k]}" c="${colours[$(( k % ${#colours[@]} ))]}"
    echo "<text x='400' y='$(( 300 + 16 * k ))' fill='$c'>${n}${OPTS[$n]:+ (${OPTS[$n]})}</text>"
    echo "${CURVE[$n]}" | tr '|' '\n' | grep -v '^$' | awk -v secs="$SECS" -v max="$max" -v c="$c" '{
      printf "<polyline fill=\"none\" stroke=\"%s\" points=\"", c
      for (i = 1; i <= NF; i++) printf "%.0f,%.0f ", 60 + (i * 10 - 5) * 640 / secs, 360 - $i * 320 / max
      print "\"/>" }'
  done
  echo "</svg>"
} >"$PLOT"
echo "plot: $PLOT"
