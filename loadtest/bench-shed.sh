#!/usr/bin/env bash
# Overload shed by class: the trip planner offered about twice the broker's capacity,
# half by gold users and half by bronze users, once with shedding by class (the default: the
# class worth least is refused first, waiting requests are served highest class first) and once
# without it (--class-priority equal: every class worth the same, refused and served in arrival
# order). Per variant and class: offered, served, refused (503), other answers, failed, mean and
# p99 response time of the served requests, and whether the mean is under the class's R_max
# (from the seed); then the ratios between the two variants.
#
#   loadtest/bench-shed.sh [--seconds 60] [--capacity-seconds 20] [--warmup 60] [--factor 2]
#                          [--max-in-flight 16] [--max-queued 16] [--equal-first] [--no-build] [--keep]
#
# One broker per variant (same seed, plan and options but --class-priority), both started at
# once and loaded in turns; the stubs answer with their shipped latencies (lognormal, means 10-45 ms).
# Capacity: a closed loop (wrk, trip.lua, as many connections as --max-in-flight) on the
# class-shedding broker after its warm-up; its req/s is the capacity. Offered load: an open loop
# at --factor x capacity (io.moses.loadtest.driver.OpenLoopDriver: request i leaves at
# start + i/rate whatever became of the earlier ones; response times count from the scheduled
# departure), users alice, carl, anna, cleo in turn (gold, bronze, gold, bronze). Rate policing
# is off (the default), so only the overload bound refuses.
# MOSES_BROKER_CP / MOSES_STUBS_CP: class paths instead of the build's (tests). Needs wrk.
# Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=60 CAP_SECS=20 WARMUP=60 FACTOR=2 MAX_IN_FLIGHT=16 MAX_QUEUED=16 BUILD=1 KEEP=0
ORDER=(class equal) # the order the two brokers are loaded in: the second meets a machine warmer from the first
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --capacity-seconds) CAP_SECS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --factor) FACTOR="$2"; shift 2 ;;
    --max-in-flight) MAX_IN_FLIGHT="$2"; shift 2 ;;
    --max-queued) MAX_QUEUED="$2"; shift 2 ;;
    --equal-first) ORDER=(equal class); shift ;;
    --no-build) BUILD=0; shift ;;
    --keep) KEEP=1; shift ;;
    *) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
for n in "$SECS" "$CAP_SECS" "$WARMUP" "$MAX_IN_FLIGHT" "$MAX_QUEUED"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "bench-shed: '$n' is not a whole number of seconds or requests" >&2; exit 2; }
done
(( SECS >= 1 && SECS <= 3600 && CAP_SECS >= 1 && CAP_SECS <= 600 && WARMUP <= 1800 )) \
  || { echo "bench-shed: --seconds 1..3600, --capacity-seconds 1..600, --warmup 0..1800" >&2; exit 2; }
[[ "$FACTOR" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "bench-shed: --factor must be a number, got '$FACTOR'" >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench-shed: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
(( BUILD == 0 )) || "$ROOT/moses" build
JAVA="$("$ROOT/moses" java)"
BROKER_CP="${MOSES_BROKER_CP:-$ROOT/broker-core/target/classes:$(cat "$ROOT/broker-core/target/classpath.txt")}"
STUBS_CP="${MOSES_STUBS_CP:-$ROOT/loadtest/target/classes:$(cat "$ROOT/loadtest/target/classpath.txt")}"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh" # await_port
bench_scratch bench-shed "$KEEP"
SEED="$ROOT/bpel-processes/trip-planner/seed.yaml"
rmax_ms() { # class -> its R_max in ms, from the seed
  grep -E "^\s*-\s*\{name:\s*$1," "$SEED" | grep -oE 'maxResponseTime:\s*[0-9.]+' | grep -oE '[0-9.]+$' | awk '{printf "%.0f", $1 * 1000}'
}
declare -A RMAX=([gold]="$(rmax_ms gold)" [bronze]="$(rmax_ms bronze)")
[[ -n "${RMAX[gold]}" && -n "${RMAX[bronze]}" ]] || { echo "bench-shed: no R_max for gold or bronze in $SEED" >&2; exit 1; }

echo "bench-shed: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $("$JAVA" -version 2>&1 | head -1)"
echo "bench-shed: trip planner (seed plan), --max-in-flight $MAX_IN_FLIGHT --max-queued $MAX_QUEUED, stubs at their shipped latencies; R_max gold ${RMAX[gold]} ms, bronze ${RMAX[bronze]} ms; logs in $TMP"
"$JAVA" -cp "$STUBS_CP" io.moses.loadtest.stubs.StubServer --port 0 >"$TMP/stubs.log" 2>&1 &
STUBS_PID=$!; PIDS+=($!)
STUB_PORT="$(await_port "$TMP/stubs.log" "stubs listening")"

VARIANTS=(class equal) # with shedding by class (main's default), without it (arrival order)
declare -A PID PORT
for v in "${VARIANTS[@]}"; do
  extra=(); [[ $v == equal ]] && extra=(--class-priority equal)
  "$JAVA" -cp "$BROKER_CP" io.moses.core.Main --port 0 --work "$TMP/work-$v" --db "mem:shed-$v" --binding adaptive --monitors none \
    --deploy "$ROOT/bpel-processes/trip-planner" --seed "$SEED" --set "STUBS=http://127.0.0.1:$STUB_PORT" \
    --max-in-flight "$MAX_IN_FLIGHT" --max-queued "$MAX_QUEUED" "${extra[@]}" >"$TMP/broker-$v.log" 2>&1 &
  PID[$v]=$!; PIDS+=($!)
done
for v in "${VARIANTS[@]}"; do PORT[$v]="$(await_port "$TMP/broker-$v.log" "broker listening")"; done
echo "bench-shed: PIDs: class ${PID[class]}, equal ${PID[equal]}, stubs $STUBS_PID"

BODY="$TMP/trip.xml"
cat >"$BODY" <<'XML'
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tp:planTrip xmlns:tp="urn:moses:trip-planner"><tp:customer>{user}</tp:customer><tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>3</tp:nights><tp:needsCar>true</tp:needsCar><tp:attractions>2</tp:attractions></tp:planTrip></soap:Body></soap:Envelope>
XML
# A broker's first composite request deploys and compiles much (seconds on a busy machine): one
# answered request each, at most 60 tries of up to 10 s, before anything is measured.
for v in "${VARIANTS[@]}"; do
  for ((i = 0; ; i++)); do
    code="$(curl -s -o /dev/null -w '%{http_code}' -m 10 -u alice:alice-demo -H 'Content-Type: text/xml; charset=utf-8' \
      -H 'SOAPAction: "urn:moses:trip-planner/planTrip"' --data-binary @<(sed 's/{user}/alice/' "$BODY") \
      "http://127.0.0.1:${PORT[$v]}/services/TripPlannerService" || true)"
    [[ "$code" == 200 ]] && break
    (( i < 60 )) || { echo "bench-shed: the $v broker answers no trip request (last HTTP $code); see $TMP/broker-$v.log" >&2; KEEP=1; exit 1; }
    sleep 1
  done
done

run_wrk() { # port connections seconds -> "rps non2xx errors"
  wrk -t2 -c"$2" -d"$3"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "http://127.0.0.1:$1" 2>&1 |
    sed -n 's/^RESULT rps=\([0-9.]*\) .* non2xx=\([0-9]*\) errors=\([0-9]*\).*/\1 \2 \3/p'
}
# Warm-up: both brokers, in 10 s steps (at most WARMUP/10 + 1 of them), below the overload bound.
for v in "${VARIANTS[@]}"; do
  printf 'bench-shed: warming up %-6s' "$v"
  for ((t = 0; t < WARMUP; t += 10)); do
    step=$(( WARMUP - t < 10 ? WARMUP - t : 10 ))
    r=($(run_wrk "${PORT[$v]}" "$MAX_IN_FLIGHT" "$step")); printf ' %s' "${r[0]:-?}"
  done
  echo " req/s"
done

r=($(run_wrk "${PORT[class]}" "$MAX_IN_FLIGHT" "$CAP_SECS"))
CAPACITY="${r[0]:-0}"
echo "bench-shed: capacity (closed loop, $MAX_IN_FLIGHT connections, $CAP_SECS s, class broker): $CAPACITY req/s (non-2xx ${r[1]:-?}, socket errors ${r[2]:-?})"
RATE="$(awk -v c="$CAPACITY" -v f="$FACTOR" 'BEGIN{printf "%.1f", c * f}')"
awk -v r="$RATE" 'BEGIN{exit !(r > 0)}' || { echo "bench-shed: no capacity measured (see $TMP/broker-class.log)" >&2; KEEP=1; exit 1; }
echo "bench-shed: offering $RATE req/s (${FACTOR}x capacity) for $SECS s to each broker in turn (${ORDER[*]}), half gold (alice, anna), half bronze (carl, cleo)"

declare -A RES
shed_snapshot() { # port -> the broker's refusals so far (moses_admission_shed_total), one "class/cause N" a line
  curl -s -m 10 "http://127.0.0.1:$1/metrics" | awk '/^moses_admission_shed_total\{/ {
      match($0, /class="[^"]*"/); c = substr($0, RSTART + 7, RLENGTH - 8); match($0, /cause="[^"]*"/); k = substr($0, RSTART + 7, RLENGTH - 8)
      n[c "/" k] += $NF } END { for (x in n) printf "%s %d\n", x, n[x] }'
}
TOOL_ERRORS=0
for v in "${ORDER[@]}"; do
  echo "bench-shed: $v: open loop, $RATE req/s, $SECS s (progress every 5 s)"
  shed_snapshot "${PORT[$v]}" >"$TMP/shed-before-$v"
  "$JAVA" -cp "$STUBS_CP" io.moses.loadtest.driver.OpenLoopDriver --url "http://127.0.0.1:${PORT[$v]}/services/TripPlannerService" \
    --action urn:moses:trip-planner/planTrip --body "$BODY" --rate "$RATE" --seconds "$SECS" --timeout 30 --progress 5 \
    --user alice:alice-demo=gold --user carl:carl-demo=bronze --user anna:anna-demo=gold --user cleo:cleo-demo=bronze \
    >"$TMP/open-$v.out" 2> >(sed "s/^/bench-shed: $v: /" >&2)
  cat "$TMP/open-$v.out" | sed "s/^/  $v: /"
  driver="$(grep '^DRIVER ' "$TMP/open-$v.out" || true)"
  [[ -n "$driver" ]] || { echo "bench-shed: the driver printed no DRIVER line" >&2; KEEP=1; exit 1; }
  TOOL_ERRORS=$(( TOOL_ERRORS + $(grep -oE 'errors=[0-9]+' <<<"$driver" | cut -d= -f2) ))
  for c in gold bronze; do
    line="$(grep "^CLASS $c " "$TMP/open-$v.out" || true)"
    [[ -n "$line" ]] || { echo "bench-shed: the driver printed no CLASS $c line" >&2; KEEP=1; exit 1; }
    for f in offered served refused other failed mean_ms p99_ms; do
      RES[$v,$c,$f]="$(grep -oE " $f=[0-9.]+" <<<"$line" | cut -d= -f2)"
    done
  done
  # the broker's own count of the 503s it gave during this load, by class and cause (a cross-check of the driver's)
  shed_snapshot "${PORT[$v]}" >"$TMP/shed-after-$v"
  awk -v v="$v" 'FILENAME == ARGV[1] { b[$1] = $2; next } { d = $2 - b[$1]; t += d; if (d) s = s " " $1 "=" d }
    END { printf "  %s: BROKER shed total=%d%s\n", v, t, s }' "$TMP/shed-before-$v" "$TMP/shed-after-$v"
  sleep 2 # the last refused requests' connections close before the next broker is loaded
done

echo
echo "results: ${RATE} req/s offered for $SECS s (${FACTOR}x the measured capacity $CAPACITY req/s); class = shedding by class, equal = arrival order"
printf '%-8s %-7s %8s %8s %8s %6s %7s %9s %9s %8s %s\n' variant class offered served refused other failed 'mean ms' 'p99 ms' 'R_max ms' 'mean < R_max'
for v in "${VARIANTS[@]}"; do for c in gold bronze; do
  ok="$(awk -v m="${RES[$v,$c,mean_ms]}" -v r="${RMAX[$c]}" -v s="${RES[$v,$c,served]}" 'BEGIN{print (s > 0 && m < r) ? "yes" : "NO"}')"
  printf '%-8s %-7s %8s %8s %8s %6s %7s %9s %9s %8s %s\n' "$v" "$c" "${RES[$v,$c,offered]}" "${RES[$v,$c,served]}" "${RES[$v,$c,refused]}" \
    "${RES[$v,$c,other]}" "${RES[$v,$c,failed]}" "${RES[$v,$c,mean_ms]}" "${RES[$v,$c,p99_ms]}" "${RMAX[$c]}" "$ok"
done; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (b > 0) printf "%.2f", a / b; else print "-"}'; }
share() { awk -v a="$1" -v b="$2" 'BEGIN{if (b > 0) printf "%.1f%%", 100 * a / b; else print "-"}'; }
for c in gold bronze; do
  echo "$c: refused $(share "${RES[class,$c,refused]}" "${RES[class,$c,offered]}") (class) vs $(share "${RES[equal,$c,refused]}" "${RES[equal,$c,offered]}") (equal);" \
    "class/equal: served $(ratio "${RES[class,$c,served]}" "${RES[equal,$c,served]}"), refused $(ratio "${RES[class,$c,refused]}" "${RES[equal,$c,refused]}")," \
    "mean $(ratio "${RES[class,$c,mean_ms]}" "${RES[equal,$c,mean_ms]}"), p99 $(ratio "${RES[class,$c,p99_ms]}" "${RES[equal,$c,p99_ms]}")"
done
echo "bench-shed: driver (tool) errors: $TOOL_ERRORS; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
