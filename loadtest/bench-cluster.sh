#!/usr/bin/env bash
# The cluster benchmark (issue 13), on a cluster of its own (./moses cluster up --replicas 2):
#  1. throughput through HAProxy with one replica in the rotation against two (the other put in
#     maintenance from HAProxy's stats page), alternating, R rounds of T seconds, N clients;
#     replicas pinned to separate cores (taskset) when the machine has two or more. Prints each
#     run, the medians, the ratio, and the replicas' CPU time per request.
#  2. with --outage S (the issue says 60): S seconds without MariaDB under load; prints the
#     failed requests and whether a leader and the plan came back.
#   loadtest/bench-cluster.sh [--rounds 3] [--seconds 20] [--clients 8] [--outage 60]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=3 SECS=20 CLIENTS=8 OUTAGE=0
while (( $# )); do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --seconds) SECS="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --outage) OUTAGE="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds R] [--seconds T] [--clients N] [--outage S]" >&2; exit 2 ;;
  esac
done
export MOSES_CLUSTER_DIR="$ROOT/work/bench-cluster"
CLUSTER="$ROOT/cluster/cluster.sh"
"$ROOT/moses" build
trap 'bash "$CLUSTER" down' EXIT
FRONT=$(bash "$CLUSTER" up --replicas 2)
# shellcheck disable=SC1091
source "$MOSES_CLUSTER_DIR/state"
if (( $(nproc) >= 2 )) && command -v taskset >/dev/null; then
  taskset -acp 0 "$PID_r1" >/dev/null; taskset -acp 1 "$PID_r2" >/dev/null
  echo "replicas pinned: r1 to core 0, r2 to core 1 (HAProxy, MariaDB, the stubs and the load generator float)"
fi
BODY="$MOSES_CLUSTER_DIR/trip.xml"
cat > "$BODY" <<'XML'
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tp:planTrip xmlns:tp="urn:moses:trip-planner"><tp:customer>bench</tp:customer><tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>3</tp:nights><tp:needsCar>true</tp:needsCar><tp:attractions>2</tp:attractions></tp:planTrip></soap:Body></soap:Envelope>
XML
USERS=(--user alice:alice-demo --user bob:bob-demo --user carl:carl-demo --user anna:anna-demo --user bea:bea-demo --user cleo:cleo-demo)
load() { # seconds -> one JSON line
  "$ROOT/moses" load --url "$FRONT/services/TripPlannerService" --action urn:moses:trip-planner/planTrip --body "$BODY" \
    "${USERS[@]}" --clients "$CLIENTS" --seconds "$1" --progress 0 --json
}
# the first occurrence: the totals come before the per-user figures
field() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2; }
p50() { grep -o '"p50":[0-9.]*' <<<"$1" | head -1 | cut -d: -f2; }
cpu_ticks() { local t=0 p; for p in "$@"; do t=$(( t + $(awk '{print $14 + $15}' "/proc/$p/stat") )); done; echo "$t"; }
rotation() { # r2 in or out of HAProxy's rotation
  curl -s -o /dev/null -d "s=r2&action=$1&b=replicas" "http://127.0.0.1:$STATS_PORT/"
  sleep 2
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }

echo "warm-up: 60 s through both replicas (the JIT; shorter and the first rounds measure it)"
load 60 >/dev/null || true
HZ=$(getconf CLK_TCK)
declare -a ONE TWO
printf '%-6s %-9s %10s %8s %8s %14s\n' round replicas 'req/s' 'p50 ms' errors 'cpu ms/req'
for r in $(seq 1 "$ROUNDS"); do
  for mode in one two; do
    [[ $mode == one ]] && rotation maint || rotation ready
    before=$(cpu_ticks "$PID_r1" "$PID_r2")
    out=$(load "$SECS" || true)
    after=$(cpu_ticks "$PID_r1" "$PID_r2")
    req=$(field requests "$out"); tput=$(field throughput "$out"); errs=$(field errorCount "$out")
    cpu=$(awk -v t=$(( after - before )) -v hz="$HZ" -v n="$req" 'BEGIN {printf "%.2f", n ? t * 1000 / hz / n : 0}')
    printf '%-6s %-9s %10s %8s %8s %14s\n' "$r" "$mode" "$tput" "$(p50 "$out")" "$errs" "$cpu"
    if [[ $mode == one ]]; then ONE+=("$tput"); else TWO+=("$tput"); fi
  done
done
rotation ready
m1=$(printf '%s\n' "${ONE[@]}" | median); m2=$(printf '%s\n' "${TWO[@]}" | median)
echo "median throughput: one replica $m1 req/s, two replicas $m2 req/s, ratio two/one $(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.2f", b ? a / b : 0}')"

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
