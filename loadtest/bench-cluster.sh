#!/usr/bin/env bash
# The cluster benchmark (issues 13 and 21), on a cluster of its own (./moses cluster up --replicas 2):
#  1. scale-out cost: the trip planner through HAProxy with one replica in the rotation (r2 put in
#     maintenance from HAProxy's stats page) against two, interleaved (one, two, one, two ...),
#     R rounds of T seconds, wrk closed loop with N connections, as the seed's six users; replicas
#     pinned to separate cores (taskset) when the machine has two or more. For every run, the CPU
#     (utime+stime in /proc/PID/stat) over the run of each replica, HAProxy, the stubs, MariaDB and
#     wrk, and the whole machine's busy time (/proc/stat), each divided by the requests completed;
#     the requests each replica answered (HAProxy's counters). Then the medians per configuration,
#     the ratio two/one of broker CPU per request (the sum over the replicas in the rotation)
#     against the goal (<= 1.1x) with a verdict, and what explains it: every process's CPU with no
#     load (ms/s) and the ratio net of the replicas' idle CPU, their JIT-compiler and GC threads,
#     each replica's CPU per request it answered, their threads' context switches per request,
#     and their CPU by thread with the largest differences between one replica and two.
#  2. with --outage S (the issue says 60): S seconds without MariaDB under load; prints the
#     failed requests and whether a leader and the plan came back.
#   loadtest/bench-cluster.sh [--rounds 3] [--seconds 20] [--clients 8] [--warmup 60] [--idle 15]
#                             [--clients-two N] [--outage 60] [--no-build]
# --clients-two N: wrk's connections for the two-replica runs (default: --clients, the same load
# for both; twice --clients gives each replica the load the lone one had).
# Needs wrk and HAProxy. Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -eEuo pipefail
# a command that fails stops the bench; say which, or the exit is silent
trap 'echo "bench: stopped: line $LINENO failed: $BASH_COMMAND" >&2' ERR
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3 SECS=20 CLIENTS=8 CLIENTS_TWO="" WARMUP=60 IDLE=15 OUTAGE=0 BUILD=1
GOAL=1.1 # two replicas may cost at most this many times the CPU per request of one
while (( $# )); do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --clients-two) CLIENTS_TWO="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --idle) IDLE="$2"; shift 2 ;;
    --outage) OUTAGE="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "bench: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
export MOSES_CLUSTER_DIR="${MOSES_CLUSTER_DIR:-$ROOT/work/bench-cluster}"
CLUSTER="$ROOT/cluster/cluster.sh"
(( BUILD == 0 )) || "$ROOT/moses" build
trap 'bash "$CLUSTER" down' EXIT
trap "exit 130" INT TERM
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "bench: starting the cluster (MariaDB, stubs, two replicas, HAProxy) in $MOSES_CLUSTER_DIR"
FRONT=$(bash "$CLUSTER" up --replicas 2)
# shellcheck disable=SC1091
source "$MOSES_CLUSTER_DIR/state"
# shellcheck source=loadtest/bench-lib.sh
source "$ROOT/loadtest/bench-lib.sh" # ticks, HZ, median, jvm_threads
echo "bench: PIDs: r1 $PID_r1, r2 $PID_r2, haproxy $HAPROXY_PID, stubs $STUBS_PID, mariadb $MARIADB_PID"
if (( $(nproc) >= 2 )) && command -v taskset >/dev/null; then
  taskset -acp 0 "$PID_r1" >/dev/null; taskset -acp 1 "$PID_r2" >/dev/null
  echo "bench: replicas pinned: r1 to core 0, r2 to core 1 (HAProxy, MariaDB, the stubs and wrk float)"
fi
BODY="$MOSES_CLUSTER_DIR/trip.xml"
cat > "$BODY" <<'XML'
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tp:planTrip xmlns:tp="urn:moses:trip-planner"><tp:customer>bench</tp:customer><tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>3</tp:nights><tp:needsCar>true</tp:needsCar><tp:attractions>2</tp:attractions></tp:planTrip></soap:Body></soap:Envelope>
XML
USERS=(--user alice:alice-demo --user bob:bob-demo --user carl:carl-demo --user anna:anna-demo --user bea:bea-demo --user cleo:cleo-demo)
load() { # seconds -> one JSON line (the outage drill's driver: it reports every failed request)
  "$ROOT/moses" load --url "$FRONT/services/TripPlannerService" --action urn:moses:trip-planner/planTrip --body "$BODY" \
    "${USERS[@]}" --clients "$CLIENTS" --seconds "$1" --progress 0 --json
}
# the first occurrence: the totals come before the per-user figures
field() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2; }
rotation() { # r2 in (ready) or out (maint) of HAProxy's rotation; waits until HAProxy says so (UP or MAINT)
  # and until no request is in flight at either replica (a slow one from the run before would be
  # counted in the next run, on a replica that may be out of it)
  local want i st; [[ $1 == maint ]] && want=MAINT || want=UP
  curl -s -o /dev/null -d "s=r2&action=$1&b=replicas" "http://127.0.0.1:$STATS_PORT/"
  for ((i = 0; i < 600; i++)); do
    st=$(curl -s "http://127.0.0.1:$STATS_PORT/;csv" | awk -F, '$1 == "replicas" && $2 ~ /^r[0-9]+$/ {busy += $5; if ($2 == "r2") s = $18}
      END {print s "/" busy + 0}')
    [[ $st == "$want/0" ]] && return
    sleep 0.1
  done
  echo "bench: 60 s after '$1' HAProxy says r2 is ${st%/*} with ${st#*/} requests in flight" >&2; exit 1
}
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN{printf f, (b > 0) ? a / b : 0}'; } # a / b
machine_busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; } # every core's non-idle ticks
served() { # -> "r1 r2": the requests each replica has answered (HAProxy's per-server response counters)
  curl -s "http://127.0.0.1:$STATS_PORT/;csv" | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "hrsp_2xx") ok = i; else if ($i == "hrsp_5xx") bad = i
      else if ($i == "hrsp_4xx") cli = i; next}
    $1 == "replicas" {n[$2] = $ok + $cli + $bad} END {print n["r1"] + 0, n["r2"] + 0}'
}
thread_ticks() { # pid -> "tid name ticks" for every live thread; digits in names become #, spaces _
  task_files "$1" stat | awk '{c = substr($0, index($0, "(") + 1); c = substr(c, 1, index(c, ")") - 1)
    gsub(/[0-9]+/, "#", c); gsub(/ /, "_", c); n = split(substr($0, index($0, ") ") + 2), f, " "); print $1, c, f[12] + f[13]}'
}
ctx_switches() { # pid -> the context switches of its live threads (each thread's wait for work is one)
  task_files "$1" status | awk '/^(non)?voluntary_ctxt_switches:/ {n += $2} END {print n + 0}'
}
THREADS="$MOSES_CLUSTER_DIR/threads"; mkdir -p "$THREADS"; : > "$THREADS/groups"
thread_delta() { # mode replica before after process-ticks -> appends "mode replica group ticks" to $THREADS/groups;
  # threads that ended during the run took their ticks with them: the rest of the process's delta
  awk -v mode="$1" -v rep="$2" -v total="$5" 'FNR == NR {b[$1] = $3; next}
    {d = $3 - b[$1]; if (d > 0) {g[$2] += d; sum += d}}
    END {for (k in g) print mode, rep, k, g[k]; if (total > sum) print mode, rep, "(threads_that_ended)", total - sum}' "$3" "$4" >> "$THREADS/groups"
}
leader() { local i p; for i in 1 2; do p="PORT_r$i"; curl -s "http://127.0.0.1:${!p}/health" | grep -q '"optimizerLeader" *: *true' && echo "r$i"; done; true; }
NAMES=(r1 r2 haproxy stubs mariadb)
PIDS_OF=("$PID_r1" "$PID_r2" "$HAPROXY_PID" "$STUBS_PID" "$MARIADB_PID")
snapshot() { # -> machine, then the ticks of every process in NAMES, then r1's and r2's JIT and GC ticks, then served
  local s p; s="$(machine_busy)"
  for p in "${PIDS_OF[@]}"; do s+=" $(ticks "$p")"; done
  echo "$s $(jvm_threads "$PID_r1") $(jvm_threads "$PID_r2") $(served)"
}
run_wrk() { # seconds [connections] -> wrk's RESULT line, then "LOADGEN <ticks>": wrk's own CPU (this subshell's children)
  local conns="${2:-$CLIENTS}" me=$BASHPID
  wrk -t"$(( conns < 2 ? 1 : 2 ))" -c"$conns" -d"$1"s --timeout 10s -s "$ROOT/loadtest/wrk/trip.lua" "$FRONT" 2>&1 | grep '^RESULT' || true
  echo "LOADGEN $(awk '{print $16 + $17}' "/proc/$me/stat")"
}
ticker() { # a dot every 5 s while a run lasts, so a long run shows it is alive (ends with the script)
  while sleep 5 && kill -0 $$ 2>/dev/null; do printf '.' >&2; done
}
ms() { awk -v t="$1" -v hz="$HZ" 'BEGIN{printf "%.0f", t * 1000 / hz}'; } # ticks -> ms

echo "bench: warm-up: ${WARMUP} s through both replicas (the JIT of both; shorter and the first rounds measure it)"
for ((t = 0; t < WARMUP; t += 10)); do
  r=$(run_wrk "$(( WARMUP - t < 10 ? WARMUP - t : 10 ))" | sed -n 's/^RESULT rps=\([0-9.]*\).*/\1/p')
  printf 'bench: warm-up %3d s: %s req/s\n' "$(( t + 10 < WARMUP ? t + 10 : WARMUP ))" "${r:-?}"
done

declare -A M # M[mode,column] = the rounds' values, space separated
declare -A T # T[mode,r1|r2] = a replica's ticks over all rounds, T[mode,r1n|r2n] = the requests it answered
COLS=(rps p50 p99 broker r1 r2 haproxy stubs mariadb wrk machine jit gc)
HEAD=$(printf '%-5s %-4s %7s %7s %7s %6s %9s %11s %7s %7s %7s %7s %7s %8s %13s' round conf 'req/s' 'p50 ms' 'p99 ms' errors \
  'r1/r2 %' 'broker ms' 'r1' 'r2' haproxy stubs mariadb wrk 'machine busy')
CLIENTS_TWO="${CLIENTS_TWO:-$CLIENTS}"
echo "bench: $ROUNDS rounds of ${SECS} s per configuration, wrk ${CLIENTS} connections$([[ $CLIENTS_TWO == "$CLIENTS" ]] || echo " with one replica, $CLIENTS_TWO with two"); CPU in ms per request completed"
echo "bench: (broker = the replicas in the rotation; r1/r2 % = the share of requests each answered)"
echo "$HEAD"
for ((round = 1; round <= ROUNDS; round++)); do
  for mode in one two; do
    [[ $mode == one ]] && rotation maint || rotation ready
    printf '%-5s %-4s running %s s' "$round" "$mode" "$SECS" >&2
    ticker & tick=$!
    thread_ticks "$PID_r1" > "$THREADS/r1.0"; thread_ticks "$PID_r2" > "$THREADS/r2.0"
    cs0=("$(ctx_switches "$PID_r1")" "$(ctx_switches "$PID_r2")")
    s0=($(snapshot)); out="$(run_wrk "$SECS" "$([[ $mode == one ]] && echo "$CLIENTS" || echo "$CLIENTS_TWO")")"; s1=($(snapshot))
    thread_ticks "$PID_r1" > "$THREADS/r1.1"; thread_ticks "$PID_r2" > "$THREADS/r2.1"
    cs1=("$(ctx_switches "$PID_r1")" "$(ctx_switches "$PID_r2")")
    kill "$tick" 2>/dev/null; wait "$tick" 2>/dev/null || true
    if [[ -t 2 ]]; then printf '\r\033[K' >&2; else echo >&2; fi
    n=""; read -r rps p50 p99 non2xx errs n < <(sed -n 's/^RESULT rps=\([0-9.]*\) p50_ms=\([0-9.]*\) p99_ms=\([0-9.]*\) non2xx=\([0-9]*\) errors=\([0-9]*\) requests=\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' <<<"$out") || true
    [[ -n ${n:-} ]] || { echo "bench: wrk printed no result: $out" >&2; exit 1; }
    loadgen=$(sed -n 's/^LOADGEN //p' <<<"$out")
    declare -A d=()
    for i in "${!NAMES[@]}"; do d[${NAMES[$i]}]=$(( s1[i + 1] - s0[i + 1] )); done
    d[machine]=$(( s1[0] - s0[0] )); d[wrk]=$loadgen
    d[jit]=$(( s1[6] - s0[6] )); d[gc]=$(( s1[7] - s0[7] ))       # r1's
    r1n=$(( s1[10] - s0[10] )); r2n=$(( s1[11] - s0[11] ))
    if [[ $mode == two ]]; then
      d[broker]=$(( d[r1] + d[r2] )); d[jit]=$(( d[jit] + s1[8] - s0[8] )); d[gc]=$(( d[gc] + s1[9] - s0[9] ))
    else
      d[broker]=${d[r1]} # r2 is out of the configuration: its (idle) CPU is shown, not counted
    fi
    M[$mode,rps]+="$rps "; M[$mode,p50]+="$p50 "; M[$mode,p99]+="$p99 "; M[$mode,errors]+="$(( non2xx + errs )) "
    M[$mode,n]+="$n "
    T[$mode,r1]=$(( ${T[$mode,r1]:-0} + d[r1] )); T[$mode,r2]=$(( ${T[$mode,r2]:-0} + d[r2] ))
    T[$mode,r1n]=$(( ${T[$mode,r1n]:-0} + r1n )); T[$mode,r2n]=$(( ${T[$mode,r2n]:-0} + r2n ))
    cs=$(( cs1[0] - cs0[0] )); [[ $mode == one ]] || cs=$(( cs + cs1[1] - cs0[1] ))
    T[$mode,cs]=$(( ${T[$mode,cs]:-0} + cs ))
    thread_delta "$mode" r1 "$THREADS/r1.0" "$THREADS/r1.1" "${d[r1]}"
    [[ $mode == one ]] || thread_delta "$mode" r2 "$THREADS/r2.0" "$THREADS/r2.1" "${d[r2]}"
    for c in broker r1 r2 haproxy stubs mariadb wrk machine jit gc; do
      M[$mode,$c]+="$(div "$(ms "${d[$c]}")" "$n") "
    done
    printf '%-5s %-4s %7s %7s %7s %6s %9s %11s %7s %7s %7s %7s %7s %8s %13s\n' "$round" "$mode" "$rps" "$p50" "$p99" "$(( non2xx + errs ))" \
      "$(div "$(( 100 * r1n ))" "$(( r1n + r2n ))" %.0f)/$(div "$(( 100 * r2n ))" "$(( r1n + r2n ))" %.0f)" \
      "$(div "$(ms "${d[broker]}")" "$n")" "$(div "$(ms "${d[r1]}")" "$n")" "$(div "$(ms "${d[r2]}")" "$n")" \
      "$(div "$(ms "${d[haproxy]}")" "$n")" "$(div "$(ms "${d[stubs]}")" "$n")" "$(div "$(ms "${d[mariadb]}")" "$n")" \
      "$(div "$(ms "${d[wrk]}")" "$n")" "$(div "$(ms "${d[machine]}")" "$n")"
  done
done
rotation ready

echo "bench: idle: ${IDLE} s with no load, both replicas in the rotation (what each process costs doing nothing)"
sleep 3 # the last run's after-work (a compilation, a GC) is not idle CPU
i0=($(snapshot)); sleep "$IDLE"; i1=($(snapshot))
declare -A IDLE_MS # ms of CPU per second of wall time, no load
for i in "${!NAMES[@]}"; do IDLE_MS[${NAMES[$i]}]=$(div "$(ms "$(( i1[i + 1] - i0[i + 1] ))")" "$IDLE"); done
IDLE_MS[machine]=$(div "$(ms "$(( i1[0] - i0[0] ))")" "$IDLE")
echo "bench: idle CPU, ms per s: r1 ${IDLE_MS[r1]}, r2 ${IDLE_MS[r2]}, haproxy ${IDLE_MS[haproxy]}, stubs ${IDLE_MS[stubs]}, mariadb ${IDLE_MS[mariadb]}; machine ${IDLE_MS[machine]} (others' work included); optimizer leader: $(leader | tr '\n' ' ')"

declare -A MED
for mode in one two; do for c in "${COLS[@]}"; do MED[$mode,$c]=$(echo "${M[$mode,$c]}" | median); done; done
echo
echo "medians of $ROUNDS rounds (CPU in ms per request; broker = the replicas in the rotation; jit+gc = their compiler and GC threads):"
printf '%-4s %7s %7s %7s %6s %9s %7s %7s %7s %7s %7s %7s %13s %7s\n' conf 'req/s' 'p50 ms' 'p99 ms' errors broker r1 r2 haproxy stubs mariadb wrk 'machine busy' 'jit+gc'
for mode in one two; do
  printf '%-4s %7s %7s %7s %6s %9s %7s %7s %7s %7s %7s %7s %13s %7s\n' "$mode" "${MED[$mode,rps]}" "${MED[$mode,p50]}" "${MED[$mode,p99]}" \
    "$(awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}' <<<"${M[$mode,errors]}")" "${MED[$mode,broker]}" "${MED[$mode,r1]}" "${MED[$mode,r2]}" \
    "${MED[$mode,haproxy]}" "${MED[$mode,stubs]}" "${MED[$mode,mariadb]}" "${MED[$mode,wrk]}" "${MED[$mode,machine]}" \
    "$(awk -v a="${MED[$mode,jit]}" -v b="${MED[$mode,gc]}" 'BEGIN{printf "%.2f", a + b}')"
done
echo "(in 'one', r2 is in maintenance: its column is its idle CPU over the run, not counted in broker)"
RATIO=$(div "${MED[two,broker]}" "${MED[one,broker]}")
read -ra ONE_B <<<"${M[one,broker]}"; read -ra TWO_B <<<"${M[two,broker]}"
PER_ROUND=""; for i in "${!ONE_B[@]}"; do PER_ROUND+=" $(div "${TWO_B[$i]}" "${ONE_B[$i]}")"; done
if awk -v r="$RATIO" -v g="$GOAL" 'BEGIN{exit !(r > 0 && r <= g)}'; then VERDICT="met"; else VERDICT="NOT MET"; fi
ERRORS=$(awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}' <<<"${M[one,errors]} ${M[two,errors]}")
echo "scale-out cost: broker CPU per request, two replicas / one replica: ${RATIO}x (goal <= ${GOAL}x): ${VERDICT} (per round:${PER_ROUND})$(
  [[ $CLIENTS_TWO == "$CLIENTS" ]] || echo "; two replicas at $CLIENTS_TWO connections against one at $CLIENTS, not the same load")"
(( ERRORS == 0 )) || echo "scale-out cost: ${ERRORS} requests failed: the figures above count completed requests only"
echo "HAProxy: $(div "${MED[one,haproxy]}" 1) ms/request with one replica, $(div "${MED[two,haproxy]}" 1) with two; broker + HAProxy, two / one: $(div \
  "$(awk -v a="${MED[two,broker]}" -v b="${MED[two,haproxy]}" 'BEGIN{print a + b}')" "$(awk -v a="${MED[one,broker]}" -v b="${MED[one,haproxy]}" 'BEGIN{print a + b}')")x"
# Where a difference comes from: CPU the replicas spend with no load (monitors, lease, plan polling)
# divided over the requests of a run, and the JIT and GC threads.
IDLE1=$(div "${IDLE_MS[r1]}" "${MED[one,rps]}"); IDLE2=$(div "$(awk -v a="${IDLE_MS[r1]}" -v b="${IDLE_MS[r2]}" 'BEGIN{print a + b}')" "${MED[two,rps]}")
NET1=$(awk -v a="${MED[one,broker]}" -v b="$IDLE1" 'BEGIN{printf "%.2f", a - b}'); NET2=$(awk -v a="${MED[two,broker]}" -v b="$IDLE2" 'BEGIN{printf "%.2f", a - b}')
echo "why: the replicas' idle CPU at these rates is ${IDLE1} ms/request with one replica and ${IDLE2} with two;" \
  "net of it, ${NET1} and ${NET2} ms/request, ratio $(div "$NET2" "$NET1")x;" \
  "JIT-compiler threads ${MED[one,jit]} and ${MED[two,jit]}, GC and VM threads ${MED[one,gc]} and ${MED[two,gc]} ms/request"
echo "why, per replica: CPU per request it answered: one: r1 $(div "$(ms "${T[one,r1]}")" "${T[one,r1n]}");" \
  "two: r1 $(div "$(ms "${T[two,r1]}")" "${T[two,r1n]}"), r2 $(div "$(ms "${T[two,r2]}")" "${T[two,r2n]}") ms;" \
  "the replicas' threads switched context $(div "${T[one,cs]}" "$(( T[one,r1n] ))" %.1f) times per request with one," \
  "$(div "${T[two,cs]}" "$(( T[two,r1n] + T[two,r2n] ))" %.1f) with two;" \
  "since start: r1 answered $(served | cut -d' ' -f1) requests and its JIT threads took $(ms "$(jvm_threads "$PID_r1" | cut -d' ' -f1)") ms," \
  "r2 $(served | cut -d' ' -f2) and $(ms "$(jvm_threads "$PID_r2" | cut -d' ' -f1)") ms"
N_ONE=$(awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}' <<<"${M[one,n]}")
N_TWO=$(awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}' <<<"${M[two,n]}")
echo "why, by thread (the replicas in the rotation, names with digits as #; ms per request over all rounds; the largest differences):"
awk -v n1="$N_ONE" -v n2="$N_TWO" -v hz="$HZ" '{t[$3, $1] += $4; g[$3] = 1}
  END {for (k in g) {a = t[k, "one"] * 1000 / hz / n1; b = t[k, "two"] * 1000 / hz / n2
         if (a > 0.005 || b > 0.005) print (b > a ? b - a : a - b), k, a, b, b - a}}' "$THREADS/groups" |
  sort -k1,1gr | head -12 | awk 'BEGIN {printf "  %-34s %8s %8s %8s\n", "thread", "one", "two", "two-one"}
    {printf "  %-34s %8.3f %8.3f %+8.3f\n", $2, $3, $4, $5}'
echo "bench: load average at the end $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"

if (( OUTAGE > 0 )); then
  echo "outage: $OUTAGE s without MariaDB under load ($CLIENTS clients)"
  total=$(( OUTAGE + 30 ))
  load "$total" > "$MOSES_CLUSTER_DIR/outage.json" &
  loader=$!
  sleep 10
  bash "$CLUSTER" db-stop
  sleep "$OUTAGE"
  bash "$CLUSTER" db-start
  wait "$loader" || true
  out=$(cat "$MOSES_CLUSTER_DIR/outage.json")
  echo "outage run: $(field requests "$out") requests, $(field errorCount "$out") failed, $(field throughput "$out") req/s"
  sleep 5
  bash "$CLUSTER" status || true
  grep -h "OptimizerLease\|knowledge base is back" "$MOSES_CLUSTER_DIR"/logs/r*.log | tail -8
fi
