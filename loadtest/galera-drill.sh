#!/usr/bin/env bash
# The Galera fault drill (issue 22), on a cluster of its own: two replicas behind HAProxy over a
# 3-node Galera knowledge base (./moses cluster up --replicas 2 --db galera), the trip planner
# under steady closed-loop load through the front for LOAD seconds. After 10 s node 1 (the one
# the replicas' failover URL uses first) is SIGKILLed; then, through the front: a new user is
# subscribed and a re-plan asked for, each timed from the kill until it succeeds; the optimizer
# leader is read from every replica. After 30 s node 1 is started again and must rejoin (3 nodes
# Synced). Verdict: FAIL if a composite request failed, a write did not succeed within 60 s, or
# the cluster did not come back to 3 Synced nodes. Bounded: about LOAD + 2 minutes in all.
#   loadtest/galera-drill.sh [--seconds 60] [--clients 4] [--no-build]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=60 CLIENTS=4 BUILD=1
while (( $# )); do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
(( SECS >= 45 )) || { echo "drill: --seconds must be at least 45 (kill at 10 s, restart at 30 s)" >&2; exit 2; }
export MOSES_CLUSTER_DIR="${MOSES_CLUSTER_DIR:-$ROOT/work/galera-drill}"
CLUSTER="$ROOT/cluster/cluster.sh"
(( BUILD == 0 )) || "$ROOT/moses" build
trap 'bash "$CLUSTER" down' EXIT
trap "exit 130" INT TERM
now() { date +%s%N; }
ms_since() { echo $(( ($(now) - $1) / 1000000 )); }
echo "drill: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
t=$(now)
FRONT=$(bash "$CLUSTER" up --replicas 2 --db galera)
echo "drill: cluster up in $(( $(ms_since "$t") / 1000 )) s; front $FRONT"
# shellcheck disable=SC1091
source "$MOSES_CLUSTER_DIR/state"
BODY="$MOSES_CLUSTER_DIR/trip.xml"
cat > "$BODY" <<'XML'
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tp:planTrip xmlns:tp="urn:moses:trip-planner"><tp:customer>drill</tp:customer><tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>3</tp:nights><tp:needsCar>true</tp:needsCar><tp:attractions>2</tp:attractions></tp:planTrip></soap:Body></soap:Envelope>
XML
"$ROOT/moses" load --url "$FRONT/services/TripPlannerService" --action urn:moses:trip-planner/planTrip --body "$BODY" \
  --user alice:alice-demo --user bob:bob-demo --user carl:carl-demo --user anna:anna-demo \
  --clients "$CLIENTS" --seconds "$SECS" --progress 0 --json > "$MOSES_CLUSTER_DIR/load.json" &
loader=$!
sleep 10
leader() { local i p h out=""; for i in $(seq 1 "$REPLICAS"); do p="PORT_r$i"; h=$(curl -s --max-time 3 "http://127.0.0.1:${!p}/health" | tr -d ' \n'); [[ $h == *'"optimizerLeader":true'* ]] && out+="r$i "; done; echo "${out:-none}"; }
echo "drill: leader before the kill: $(leader)"
bash "$CLUSTER" db-stop 1 --kill
killed=$(now)
fail=0
# Writes through the front, with curl (no client JVM to start): subscribe a new user (the SLA
# manager's admission, a version-checked commit, and the re-plan it asks the leader for), then an
# operator's re-plan (the leader publishes a plan). Each attempt's outcome is printed.
subscribe() {
  local u="drill$RANDOM"
  curl -s --max-time 60 -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "urn:moses:sla-manager:Subscribe"' \
    --data "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/' xmlns:m='urn:moses:sla-manager'><s:Body><m:subscribe><m:user>$u</m:user><m:password>drill-password-$u</m:password><m:serviceClass>bronze</m:serviceClass><m:rate>0.01</m:rate></m:subscribe></s:Body></s:Envelope>" \
    "$FRONT/manage/sla" | grep -q '<\([a-z0-9]*:\)\{0,1\}accepted>true<'
}
replan() {
  [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 60 -u operator:operator-demo -H 'Content-Type: application/json' \
    --data '{"reason":"galera drill"}' "$FRONT/admin/replan") == 200 ]]
}
attempt() { # what command -> the ms from the kill until the command succeeded (tries for 60 s)
  local what="$1"; shift
  while (( $(ms_since "$killed") < 60000 )); do
    local t0; t0=$(now)
    if "$@"; then echo "drill: $what succeeded $(ms_since "$killed") ms after the kill (that try took $(ms_since "$t0") ms)" >&2; ms_since "$killed"; return; fi
    echo "drill: $what refused or failed at $(ms_since "$killed") ms (took $(ms_since "$t0") ms); trying again" >&2
    sleep 0.2
  done
  return 1
}
sub_ms=$(attempt "a subscription through the front" subscribe) || { echo "drill: no subscription admitted within 60 s"; fail=1; }
replan_ms=$(attempt "a re-plan through the front" replan) || { echo "drill: no re-plan answered within 60 s"; fail=1; }
echo "drill: leader after the kill: $(leader)"
bash "$CLUSTER" status | grep galera- || true
sleep $(( 30 - $(ms_since "$killed") / 1000 > 0 ? 30 - $(ms_since "$killed") / 1000 : 0 ))
t=$(now)
bash "$CLUSTER" db-start 1 || fail=1
echo "drill: node 1 rejoined (Synced) in $(( $(ms_since "$t") / 1000 )) s"
wait "$loader" || true
out=$(cat "$MOSES_CLUSTER_DIR/load.json")
field() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2; }
echo "drill: $(field requests "$out") composite requests, $(field errorCount "$out") failed, $(field throughput "$out") req/s"
[[ $(field errorCount "$out") == 0 ]] || fail=1
st=$(bash "$CLUSTER" status || true); echo "$st"
[[ $(grep -c 'Synced .*cluster size 3 *Primary' <<<"$st") == 3 ]] || { echo "drill: the cluster is not back to 3 Synced nodes"; fail=1; }
echo "drill: leader at the end: $(leader); lease events:"
grep -h "leads the optimizer\|lost the optimizer\|stopped leading" "$MOSES_CLUSTER_DIR"/logs/r*.log | tail -6 || true
if (( fail )); then echo "drill: FAIL"; exit 1; fi
echo "drill: OK"
