#!/usr/bin/env bash
# Builds of the broker compared on a busy machine: all loaded AT THE SAME TIME (one wrk each,
# closed loop, trip planner, static binding, stubs at 0 ms), so that whatever else runs on the
# machine weighs on all alike. Per round: each broker's req/s and CPU per request (utime+stime
# from /proc/PID/stat over the round) and its ratio to the first; at the end the medians of the
# per-round ratios. Use it when bench-throughput.sh (which loads its brokers in turns) cannot
# get a quiet machine.
#
#   loadtest/bench-pair.sh --variant NAME=CLASSPATH --variant NAME=CLASSPATH [...]
#                          [--java NAME=JAVA] [--opts NAME="JVM options"] [--live NAME]
#                          [--rounds 10] [--seconds 20] [--connections 8] [--java-opts "..."]
#                          [--ratio NAME/NAME]...
# The first variant is the reference. A classpath "current" means this checkout's build.
# --ratio A/B: also A's numbers against B's, per round and as medians (each variant is compared
# with the reference anyway), e.g. the live variants of two builds against each other.
# --live NAME: that variant runs the seed's plan with the monitors and the optimizer on (adaptive
# binding, bpel-processes/trip-planner/seed.yaml) instead of the static binding, e.g.
# --variant static=current --variant live=current --live live: the live plan's cost against
# static, both loaded at once.
# Every broker is started by `./moses run`, on `./moses java` (the newest JDK 21+ installed;
# MOSES_JAVA overrides) unless --java gives it another (e.g. --java old=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
# to compare JDKs), with the heap, collector and JIT options it gives brokers (`./moses
# jvm-options`) and, for "current", the build's AOT cache (made for this build's jars only);
# --opts adds JVM options to one variant, --java-opts to all; both override the defaults.
# At the end, where each broker's CPU went over the last half of the rounds: per request, by
# group of threads (the engine's bpel-#, the partner client's soap-client-#, the front-end's
# http-#, the GC's, the JIT's ...), and each variant's difference to the reference.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=10 SECS=20 CONNS=8 VARIANTS=() JAVA_OPTS_EXTRA="" PAIRS=()
declare -A VJAVA VOPTS VLIVE
while [[ $# -gt 0 ]]; do
  case "$1" in
    --variant) VARIANTS+=("$2"); shift 2 ;;
    --java) VJAVA[${2%%=*}]="${2#*=}"; shift 2 ;;
    --opts) VOPTS[${2%%=*}]="${2#*=}"; shift 2 ;;
    --live) VLIVE[$2]=1; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --connections) CONNS="$2"; shift 2 ;;
    --java-opts) JAVA_OPTS_EXTRA="$2"; shift 2 ;;
    --ratio) PAIRS+=("$2"); shift 2 ;;
    *) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ ${#VARIANTS[@]} -ge 2 ]] || { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench-pair: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java)"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh"
bench_scratch bench-pair
start_stubs_at_zero
declare -A PID PORT
NAMES=()
for v in "${VARIANTS[@]}"; do
  n="${v%%=*}" cp="${v#*=}"
  [[ "$cp" == current ]] && cp="" # ./moses run's own: this build, with its AOT cache
  broker_binding "${VLIVE[$n]:+live}"
  MOSES_JAVA="${VJAVA[$n]:-$JAVA}" MOSES_JAVA_OPTS="$JAVA_OPTS_EXTRA ${VOPTS[$n]:-}" MOSES_BROKER_CP="$cp" \
    "$ROOT/moses" run --port 0 --work "$TMP/work-$n" --db "mem:pair-$n" \
    "${BINDING[@]}" --monitors qos,ws,paths --deploy "$ROOT/bpel-processes/trip-planner" \
    --set "STUBS=http://127.0.0.1:$STUB_PORT" >"$TMP/broker-$n.log" 2>&1 &
  PID[$n]=$!; PIDS+=($!); NAMES+=("$n")
done
for n in "${NAMES[@]}"; do PORT[$n]="$(await_port "$TMP/broker-$n.log" "broker listening")"; done
ref="${NAMES[0]}"
given=("${PAIRS[@]+"${PAIRS[@]}"}") PAIRS=()
for n in "${NAMES[@]:1}"; do PAIRS+=("$n/$ref"); done
for q in "${given[@]+"${given[@]}"}"; do [[ " ${PAIRS[*]} " == *" $q "* ]] || PAIRS+=("$q"); done
for q in "${PAIRS[@]}"; do [[ -n "${PID[${q%%/*}]:-}" && -n "${PID[${q#*/}]:-}" ]] || { echo "bench-pair: --ratio $q names no variant" >&2; exit 2; }; done
bindings="static binding"
[[ -n "${VLIVE[*]:-}" ]] && bindings="live (the seed's plan, monitors and optimizer on): ${!VLIVE[*]}, else static binding"
echo "bench-pair: ${NAMES[*]} (reference $ref), trip planner, $bindings, stubs at 0 ms, $CONNS connections each, $ROUNDS rounds of $SECS s; $("$JAVA" -version 2>&1 | head -1), $("$ROOT/moses" jvm-options) $JAVA_OPTS_EXTRA; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
declare -A T0 T1 RPS CPU WPID CPU_R RPS_R P50 P99 P50_R P99_R ABS
declare -A SERVED # requests in the last half of the rounds
half=$((ROUNDS / 2 + 1))
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r == half)); then for n in "${NAMES[@]}"; do thread_groups "${PID[$n]}" >"$TMP/groups0-$n"; done; fi
  for n in "${NAMES[@]}"; do T0[$n]="$(ticks "${PID[$n]}")"; done
  for n in "${NAMES[@]}"; do
    wrk -t1 -c"$CONNS" -d"$SECS"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "http://127.0.0.1:${PORT[$n]}" >"$TMP/wrk-$n" 2>&1 &
    WPID[$n]=$!
  done
  for n in "${NAMES[@]}"; do wait "${WPID[$n]}"; done
  line="round $r:"
  for n in "${NAMES[@]}"; do
    T1[$n]="$(ticks "${PID[$n]}")"
    RPS[$n]="$(sed -n 's/^RESULT rps=\([0-9.]*\).*/\1/p' "$TMP/wrk-$n")"
    P50[$n]="$(sed -n 's/^RESULT .*p50_ms=\([0-9.]*\).*/\1/p' "$TMP/wrk-$n")" P99[$n]="$(sed -n 's/^RESULT .*p99_ms=\([0-9.]*\).*/\1/p' "$TMP/wrk-$n")"
    bad="$(sed -n 's/^RESULT .*non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1+\2/p' "$TMP/wrk-$n")"
    ((r >= half)) && SERVED[$n]="$(awk -v a="${SERVED[$n]:-0}" -v r="${RPS[$n]:-0}" -v s="$SECS" 'BEGIN{printf "%.0f", a + r * s}')"
    CPU[$n]="$(awk -v t=$((T1[$n] - T0[$n])) -v hz="$HZ" -v r="${RPS[$n]:-0}" -v s="$SECS" 'BEGIN{printf "%.2f", (r > 0) ? t * 1000 / hz / (r * s) : 0}')"
    line+="  $n ${RPS[$n]} req/s ${CPU[$n]} ms cpu/req p50 ${P50[$n]} p99 ${P99[$n]} ms (errors $bad)"
    ABS[$n,rps]+="${RPS[$n]:-0} " ABS[$n,cpu]+="${CPU[$n]} " ABS[$n,p50]+="${P50[$n]:-0} " ABS[$n,p99]+="${P99[$n]:-0} "
  done
  for pq in "${PAIRS[@]}"; do
    n="${pq%%/*}" m="${pq#*/}"
    ratio() { awk -v x="${1:-0}" -v y="${2:-0}" 'BEGIN{printf "%.2f", (y > 0) ? x / y : 0}'; }
    c="$(ratio "${CPU[$n]}" "${CPU[$m]}")" q="$(ratio "${RPS[$n]}" "${RPS[$m]}")"
    l50="$(ratio "${P50[$n]}" "${P50[$m]}")" l99="$(ratio "${P99[$n]}" "${P99[$m]}")"
    CPU_R[$pq]+="$c " RPS_R[$pq]+="$q " P50_R[$pq]+="$l50 " P99_R[$pq]+="$l99 "
    line+="  | $pq cpu $c req/s $q p50 $l50 p99 $l99"
  done
  echo "$line"
done
for n in "${NAMES[@]}"; do
  echo "$n medians: $(echo "${ABS[$n,rps]}" | median) req/s, $(echo "${ABS[$n,cpu]}" | median) ms cpu/req, p50 $(echo "${ABS[$n,p50]}" | median) ms, p99 $(echo "${ABS[$n,p99]}" | median) ms"
done
for pq in "${PAIRS[@]}"; do
  last="$(echo "${CPU_R[$pq]}" | tr ' ' '\n' | grep -v '^$' | tail -n $((ROUNDS / 2)) | tr '\n' ' ')"
  echo "$pq medians: CPU per request $(echo "${CPU_R[$pq]}" | median) (last half of the rounds $(echo "$last" | median)), throughput $(echo "${RPS_R[$pq]}" | median), p50 latency $(echo "${P50_R[$pq]}" | median), p99 latency $(echo "${P99_R[$pq]}" | median)"
done
echo "CPU per request over the last half of the rounds, by group of threads (us; groups under 0.5 us left out):"
files=() header="$(printf '  %-24s' group)"
for n in "${NAMES[@]}"; do
  thread_groups "${PID[$n]}" >"$TMP/groups1-$n"
  join -t$'\t' "$TMP/groups0-$n" "$TMP/groups1-$n" |
    awk -F'\t' -v q="${SERVED[$n]:-0}" -v hz="$HZ" '{printf "%s\t%.1f\n", $1, (q > 0) ? ($3 - $2) * 1e6 / hz / q : 0}' >"$TMP/per-request-$n"
  files+=("$TMP/per-request-$n") header+="$(printf ' %9s' "$n")"
done
for n in "${NAMES[@]:1}"; do header+="$(printf ' %12s' "$n-$ref")"; done
echo "$header"
awk -F'\t' -v k="${#NAMES[@]}" '{v[FILENAME, $1] = $2; g[$1] = 1; if (!(FILENAME in f)) {f[FILENAME] = ++nf; fn[nf] = FILENAME}}
  END {for (x in g) {big = 0; for (i = 1; i <= k; i++) {t[i] += v[fn[i], x]; if (v[fn[i], x] >= 0.5) big = 1}
         if (!big) continue; line = sprintf("  %-24s", substr(x, 1, 24)); for (i = 1; i <= k; i++) line = line sprintf(" %9.1f", v[fn[i], x])
         for (i = 2; i <= k; i++) line = line sprintf(" %+12.1f", v[fn[i], x] - v[fn[1], x]); print line}
       line = sprintf("  %-24s", "all"); for (i = 1; i <= k; i++) line = line sprintf(" %9.1f", t[i])
       for (i = 2; i <= k; i++) line = line sprintf(" %+12.1f", t[i] - t[1]); print line}' "${files[@]}" | sort -k2 -g -r
for n in "${NAMES[@]}"; do echo "rss $n: $(rss_mb "${PID[$n]}") MB"; done
