#!/usr/bin/env bash
# The Galera fault drill, on a cluster of its own: two replicas behind HAProxy over a
# 3-node Galera knowledge base (./moses cluster up --replicas 2 --db galera), the trip planner
# under steady closed-loop load through the front for the whole drill; every replica's /health
# (leader, lease holder and term) sampled 4 times a second.
#  A. one node down: node 1 (the first in the replicas' URL) SIGKILLed; a subscription, a
#     re-plan and a service change through the front, each timed from the kill; node 1 started
#     again 30 s after the kill, it must rejoin; then 10 s more.
#  B. two of three down: nodes 2 and 3 SIGKILLed (node 1 alone has no quorum); for 20 s a
#     subscription and a service change through the front must fail with a clear message or
#     wait; then node 3, then node 2 started again: writes must resume, 3 nodes Synced.
# Verdicts: 0 failed composite requests in every phase; the leader keeps its lease across the
# kill or another replica leads within lease + 2 s, and never two at once; the rejoin costs no
# term; no write succeeds without quorum (the refused ones absent on every node afterwards, the
# nodes' tables equal); the plan in force unchanged while there is no quorum; writes resume and
# the cluster is back to 3 Synced nodes. FAIL if any is not met. About 6-10 minutes in all.
#   loadtest/galera-drill.sh [--seconds 300] [--clients 4] [--no-build]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=300 CLIENTS=4 BUILD=1
LEASE_MS=3000 # the replicas' --lease (the default)
while (( $# )); do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
(( SECS >= 150 )) || { echo "drill: --seconds must be at least 150 (the load runs through both phases)" >&2; exit 2; }
export MOSES_CLUSTER_DIR="${MOSES_CLUSTER_DIR:-$ROOT/work/galera-drill}"
DIR="$MOSES_CLUSTER_DIR"
CLUSTER="$ROOT/cluster/cluster.sh"
(( BUILD == 0 )) || "$ROOT/moses" build
monitor_pid="" loader=""
cleanup() {
  touch "$DIR/monitor.stop" 2>/dev/null || true
  [[ -n $loader ]] && kill "$loader" 2>/dev/null || true
  [[ -n $monitor_pid ]] && wait "$monitor_pid" 2>/dev/null || true
  bash "$CLUSTER" down
}
trap cleanup EXIT
trap "exit 130" INT TERM
now() { date +%s%N; }
ms_since() { echo $(( ($(now) - $1) / 1000000 )); }
fail=0
verdict() { # ok? text
  if [[ $1 == ok ]]; then echo "drill: OK   $2"; else echo "drill: FAIL $2"; fail=1; fi
}
echo "drill: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
t=$(now)
FRONT=$(bash "$CLUSTER" up --replicas 2 --db galera)
echo "drill: cluster up in $(( $(ms_since "$t") / 1000 )) s; front $FRONT"
# shellcheck disable=SC1091
source "$DIR/state"
rm -f "$DIR/monitor.stop" "$DIR/leader.log"
BODY="$DIR/trip.xml"
cat > "$BODY" <<'XML'
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tp:planTrip xmlns:tp="urn:moses:trip-planner"><tp:customer>drill</tp:customer><tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>3</tp:nights><tp:needsCar>true</tp:needsCar><tp:attractions>2</tp:attractions></tp:planTrip></soap:Body></soap:Envelope>
XML
T0=$(now)
"$ROOT/moses" load --url "$FRONT/services/TripPlannerService" --action urn:moses:trip-planner/planTrip --body "$BODY" \
  --user alice:alice-demo --user bob:bob-demo --user carl:carl-demo --user anna:anna-demo \
  --clients "$CLIENTS" --seconds "$SECS" --progress 1 --json > "$DIR/load.json" 2> "$DIR/load.progress" &
loader=$!

# ---------------------------------------------------------------- what the replicas say
health() { curl -s --max-time 1 "http://127.0.0.1:$1/health" | tr -d ' \n'; }
# one line per sample: ms since the load began, then per replica leads(1/0):term:holder
monitor() {
  local end=$(( SECONDS + SECS + 600 )) i p h line
  while [[ ! -f $DIR/monitor.stop ]] && (( SECONDS < end )); do
    line="$(ms_since "$T0")"
    for i in $(seq 1 "$REPLICAS"); do
      p="PORT_r$i"; h=$(health "${!p}" || true)
      local lead=0 term=- holder=- # bash's own matching: no process per field on a loaded machine
      [[ $h == *'"optimizerLeader":true'* ]] && lead=1
      [[ $h =~ \"lease\":\"([^\"\(]*)\(term([0-9]+)\) ]] && { holder=${BASH_REMATCH[1]}; term=${BASH_REMATCH[2]}; }
      line+=" $lead:$term:$holder"
    done
    echo "$line" >> "$DIR/leader.log"
    sleep 0.25
  done
}
monitor & monitor_pid=$!
# the leader's term and holder as a replica last saw them ("term 1 held by r1")
lease_now() { tail -n 1 "$DIR/leader.log" 2>/dev/null | awk '{split($2, a, ":"); printf "term %s held by %s", a[2], a[3]}'; }
# over the samples from ms $1 to $2: the longest time without a leader (from the last sample with
# one to the next), the samples with two leaders, the terms seen first and last
leadership() {
  awk -v from="$1" -v to="$2" '
    $1 >= from && $1 <= to {
      n = 0; term = 0
      for (i = 2; i <= NF; i++) { split($i, a, ":"); n += a[1]; if (a[2] + 0 > term) term = a[2] + 0 }
      if (first == "") first = term; last = term; samples++
      if (n >= 2) both++
      # a gap runs from the last sample with a leader before a leaderless one to the next with one
      if (n == 0 && gapFrom == "") gapFrom = (lastLeader == "" ? from : lastLeader)
      if (gapFrom != "" && $1 - gapFrom > gap) gap = $1 - gapFrom
      if (n >= 1) { gapFrom = ""; lastLeader = $1; if (!seen) seen = $1 }
    }
    END { printf "%d %d %s %s %d %s\n", gap, both, (first == "" ? "-" : first), (last == "" ? "-" : last), samples, (seen == "" ? "-" : seen - from) }
  ' "$DIR/leader.log"
}
# requests and errors of the load so far (its last progress line: "[12.0s] 100 requests, 8 req/s, 0 errors")
load_now() { grep -o '[0-9]* requests, [0-9]* req/s, [0-9]* errors' "$DIR/load.progress" 2>/dev/null | tail -1 | awk '{print $1, $5}'; }
load_now_or_zero() { local l; l=$(load_now); echo "${l:-0 0}"; }
cluster_status() { bash "$CLUSTER" status 2>/dev/null || true; } # exits 1 while a node is down
plan_versions() { local i p out=""; for i in $(seq 1 "$REPLICAS"); do p="PORT_r$i"; out+="r$i:$(health "${!p}" | sed -n 's/.*"planVersion":\([0-9]*\).*/\1/p') "; done; echo "${out% }"; }

# ---------------------------------------------------------------- writes through the front
# Each prints "CODE MS BODY-EXCERPT" and succeeds when the write was accepted.
REPLY="$DIR/reply"
subscribe() { # user
  local t0; t0=$(now)
  local code; code=$(curl -s -o "$REPLY" -u operator:operator-demo -w '%{http_code}' --max-time 60 -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "urn:moses:sla-manager:Subscribe"' \
    --data "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/' xmlns:m='urn:moses:sla-manager'><s:Body><m:subscribe><m:user>$1</m:user><m:password>drill-password-$1</m:password><m:serviceClass>bronze</m:serviceClass><m:rate>0.01</m:rate></m:subscribe></s:Body></s:Envelope>" \
    "$FRONT/manage/sla" || true)
  echo "$code $(ms_since "$t0") $(sed -e 's/<[^>]*faultstring>/ /g' -e 's/<[^>]*>/ /g' "$REPLY" 2>/dev/null | tr -s ' \n' ' ' | cut -c1-240)"
  grep -q '<\([a-z0-9]*:\)\{0,1\}accepted>true<' "$REPLY" 2>/dev/null
}
change_service() { # a new cost for flight-a (1.10-1.99, most likely not the one it has), through the Service Manager's JSON API
  local t0; t0=$(now)
  local code; code=$(curl -s -o "$REPLY" -w '%{http_code}' --max-time 60 -u operator:operator-demo -X PUT -H 'Content-Type: application/json' \
    --data "{\"cost\": 1.$(( RANDOM % 90 + 10 ))}" "$FRONT/admin/services/flight-a" || true)
  echo "$code $(ms_since "$t0") $(tr -s ' \n' ' ' < "$REPLY" 2>/dev/null | cut -c1-240)"
  [[ $code == 200 ]]
}
replan() {
  local t0; t0=$(now)
  local code; code=$(curl -s -o "$REPLY" -w '%{http_code}' --max-time 60 -u operator:operator-demo -H 'Content-Type: application/json' \
    --data '{"reason":"galera drill"}' "$FRONT/admin/replan" || true)
  echo "$code $(ms_since "$t0") $(tr -s ' \n' ' ' < "$REPLY" 2>/dev/null | cut -c1-160)"
  [[ $code == 200 ]]
}
attempt() { # since label what command... -> tries for 60 s; prints the ms from $since until it succeeded
  local since="$1" label="$2" what="$3"; shift 3
  while (( $(ms_since "$since") < 60000 )); do
    local out
    if out=$("$@"); then
      echo "drill: $what succeeded $(ms_since "$since") ms after $label (that try: HTTP ${out%% *}, $(cut -d' ' -f2 <<<"$out") ms)" >&2
      ms_since "$since"; return
    fi
    echo "drill: $what refused at $(ms_since "$since") ms after $label: $out" | cut -c1-300 >&2
    sleep 0.5
  done
  return 1
}

# ================================================================ A. one node of three SIGKILLed
# the faults begin under load: 10 s after its first requests (./moses load may build first)
end=$(( SECONDS + 600 ))
until (( $(load_now_or_zero | cut -d' ' -f1) > 0 )); do
  (( SECONDS < end )) && kill -0 "$loader" 2>/dev/null || { echo "drill: FAIL the load did not start: $DIR/load.progress"; exit 1; }
  sleep 1
done
L0=$(ms_since "$T0")
sleep 10
echo "drill: A. before the kill: $(lease_now); composite requests so far $(load_now_or_zero | awk '{print $1 " (" $2 " failed)"}')"
read -r a_req0 a_err0 <<<"$(load_now_or_zero)"
bash "$CLUSTER" db-stop 1 --kill
killed=$(now); K1=$(ms_since "$T0")
sub_ms=$(attempt "$killed" "the kill" "a subscription" subscribe "drilla$RANDOM") || { verdict fail "A: no subscription admitted within 60 s of the kill"; sub_ms=-; }
replan_ms=$(attempt "$killed" "the kill" "a re-plan" replan) || { verdict fail "A: no re-plan answered within 60 s of the kill"; replan_ms=-; }
change_ms=$(attempt "$killed" "the kill" "a service change" change_service) || { verdict fail "A: no service change within 60 s of the kill"; change_ms=-; }
sleep $(( 30 - $(ms_since "$killed") / 1000 > 0 ? 30 - $(ms_since "$killed") / 1000 : 0 ))
R1=$(ms_since "$T0"); t=$(now)
if bash "$CLUSTER" db-start 1; then echo "drill: node 1 rejoined (Synced) $(( $(ms_since "$t") / 1000 )) s after its restart"
else verdict fail "A: node 1 did not rejoin"; fi
S1=$(ms_since "$T0")
sleep 10
E1=$(ms_since "$T0")
read -r a_req1 a_err1 <<<"$(load_now_or_zero)"
read -r gapK bothK termK0 termK1 _ _ <<<"$(leadership $((K1 - 1000)) "$R1")"
read -r gapR bothR termR0 termR1 _ _ <<<"$(leadership "$R1" "$E1")"
echo "drill: A. $((a_req1 - a_req0)) composite requests from the kill to 10 s after the rejoin, $((a_err1 - a_err0)) failed; writes after the kill: subscription $sub_ms ms, re-plan $replan_ms ms, service change $change_ms ms"
echo "drill: A. lease: term $termK0 before the kill, $termK1 at the restart, $termR1 10 s after the rejoin; longest time without a leader: ${gapK} ms around the kill, ${gapR} ms during the rejoin (lease ${LEASE_MS} ms)"
[[ $((a_err1 - a_err0)) == 0 ]] && verdict ok "A: 0 failed composite requests through the kill and the rejoin" || verdict fail "A: $((a_err1 - a_err0)) composite requests failed"
# a replica leads again within lease + 2 s of the last sample with a leader, whether the leader
# kept its term (its renewals got through in time, or late but before anyone else's) or not
if (( gapK <= LEASE_MS + 2000 )); then
  if [[ $termK0 == "$termK1" ]]; then verdict ok "A: the leader kept its lease (term $termK0) across the SIGKILL; at most ${gapK} ms without a leader (<= lease + 2 s)"
  else verdict ok "A: another replica took the lease (term $termK0 -> $termK1) with at most ${gapK} ms without a leader (<= lease + 2 s)"; fi
else verdict fail "A: ${gapK} ms without a leader around the kill, more than lease + 2 s = $((LEASE_MS + 2000)) ms (term $termK0 -> $termK1)"; fi
[[ $termR0 == "$termR1" ]] && verdict ok "A: the rejoin cost no term (term $termR1 kept)" \
  || verdict fail "A: the lease changed hands during node 1's rejoin (term $termR0 -> $termR1)"
(( gapR <= LEASE_MS + 2000 )) && verdict ok "A: at most ${gapR} ms without a leader during the rejoin (<= lease + 2 s)" \
  || verdict fail "A: ${gapR} ms without a leader during node 1's rejoin, more than lease + 2 s"
(( bothK + bothR == 0 )) && verdict ok "A: never two leaders at once" || verdict fail "A: $((bothK + bothR)) samples with two leaders"

# ================================================================ B. two of three nodes down
bash "$CLUSTER" db-stop 2 --kill
end=$(( SECONDS + 60 ))
until cluster_status | grep -q '^galera-n1 .*cluster size 2 '; do (( SECONDS < end )) || break; sleep 0.3; done
bash "$CLUSTER" db-stop 3 --kill
Q1=$(ms_since "$T0"); lost=$(now)
end=$(( SECONDS + 60 ))
until cluster_status | grep -q '^galera-n1 .*non-Primary'; do (( SECONDS < end )) || break; sleep 0.3; done
echo "drill: B. nodes 2 and 3 SIGKILLed; node 1 non-Primary $(ms_since "$lost") ms after the second kill"
plans_before=$(plan_versions)
read -r b_req0 b_err0 <<<"$(load_now_or_zero)"
# the writes are tried while there is no quorum, in the background: each either fails with a
# reason or waits; what it answered and when tells which
quser="drillq$RANDOM"
( out=$(subscribe "$quser") && echo "accepted $(ms_since "$lost") $out" > "$DIR/b-sub" || echo "refused $(ms_since "$lost") $out" > "$DIR/b-sub" ) &
sub_bg=$!
( out=$(change_service) && echo "accepted $(ms_since "$lost") $out" > "$DIR/b-change" || echo "refused $(ms_since "$lost") $out" > "$DIR/b-change" ) &
change_bg=$!
sleep 20
plans_during=$(plan_versions)
read -r b_req1 b_err1 <<<"$(load_now_or_zero)"
B3=$(ms_since "$T0"); back=$(now)
if bash "$CLUSTER" db-start 3; then echo "drill: B. node 3 back: Synced $(( $(ms_since "$back") / 1000 )) s after its start, the cluster primary again"
else verdict fail "B: node 3 did not rejoin"; fi
quorum_at=$(ms_since "$lost")
wait "$sub_bg" "$change_bg" || true
sub2_ms=$(attempt "$back" "node 3's start" "a subscription" subscribe "drillr$RANDOM") || { verdict fail "B: no subscription admitted within 60 s of node 3's start"; sub2_ms=-; }
change2_ms=$(attempt "$back" "node 3's start" "a service change" change_service) || { verdict fail "B: no service change within 60 s of node 3's start"; change2_ms=-; }
t=$(now)
bash "$CLUSTER" db-start 2 || verdict fail "B: node 2 did not rejoin"
echo "drill: B. node 2 back: Synced $(( $(ms_since "$t") / 1000 )) s after its start"
sleep 5
E2=$(ms_since "$T0")
read -r b_req2 b_err2 <<<"$(load_now_or_zero)"
read -r gapQ bothQ termQ0 termQ1 _ _ <<<"$(leadership "$Q1" "$B3")"
read -r gapB bothB _ termB1 _ firstLeader <<<"$(leadership "$B3" "$E2")"
echo "drill: B. $((b_req1 - b_req0)) composite requests without quorum ($((b_err1 - b_err0)) failed), $((b_req2 - b_req1)) more until node 2 was back ($((b_err2 - b_err1)) failed)"
echo "drill: B. plan in force per replica: when the quorum was lost $plans_before, at the end of the outage $plans_during"
read -r sub_v sub_t sub_rest < "$DIR/b-sub"; read -r chg_v chg_t chg_rest < "$DIR/b-change"
echo "drill: B. without quorum a subscription was $sub_v after $sub_t ms: $sub_rest" | cut -c1-400
echo "drill: B. without quorum a service change was $chg_v after $chg_t ms: $chg_rest" | cut -c1-400
echo "drill: B. after node 3's start: subscription $sub2_ms ms, service change $change2_ms ms; a replica led again $firstLeader ms after; terms $termQ0 -> $termB1"
[[ $((b_err2 - b_err0)) == 0 ]] && verdict ok "B: 0 failed composite requests with two nodes down and while they returned" || verdict fail "B: $((b_err2 - b_err0)) composite requests failed"
[[ $plans_before == "$plans_during" ]] && verdict ok "B: the plan in force served unchanged without quorum ($plans_during)" || verdict fail "B: the plan changed without quorum ($plans_before -> $plans_during)"
for w in "subscription:$sub_v:$sub_t:$sub_rest" "service change:$chg_v:$chg_t:$chg_rest"; do
  IFS=: read -r what v at rest <<<"$w"
  if [[ $v == refused ]]; then
    if grep -qi 'primary component\|unavailable' <<<"$rest"; then verdict ok "B: the $what without quorum failed with a clear message"
    else verdict fail "B: the $what without quorum failed without saying why: $rest"; fi
  elif (( at >= quorum_at - 1000 )); then verdict ok "B: the $what without quorum waited, and was accepted only once node 3 was back ($at ms)"
  else verdict fail "B: the $what was accepted without quorum ($at ms after the second kill, quorum back at $quorum_at ms): split brain"; fi
done
(( bothQ + bothB == 0 )) && verdict ok "B: never two leaders at once" || verdict fail "B: $((bothQ + bothB)) samples with two leaders"
[[ $firstLeader != - ]] && verdict ok "B: a replica leads again once the quorum is back" || verdict fail "B: no replica leads after the quorum returned"
# no split brain: the nodes hold the same users and services, and the refused subscription nowhere
sums="" missing_everywhere=1
for i in 1 2 3; do
  s=$(bash "$ROOT/cluster/galera.sh" sql "$DIR/galera" "$i" "SET SESSION wsrep_sync_wait = 1; CHECKSUM TABLE moses.app_user, moses.concrete_service" 2>/dev/null | awk '{print $2}' | tr '\n' ',')
  sums+="n$i:$s "
  c=$(bash "$ROOT/cluster/galera.sh" sql "$DIR/galera" "$i" "SET SESSION wsrep_sync_wait = 1; SELECT COUNT(*) FROM moses.app_user WHERE name = '$quser'" 2>/dev/null || echo '?')
  [[ $c == 0 || $sub_v == accepted ]] || missing_everywhere=0
done
echo "drill: B. table checksums (users, services) per node: $sums"
[[ $(tr ' ' '\n' <<<"$sums" | grep -v '^$' | cut -d: -f2 | sort -u | wc -l) == 1 ]] && verdict ok "B: the three nodes hold the same users and services" || verdict fail "B: the nodes differ: $sums"
(( missing_everywhere )) && verdict ok "B: nothing refused without quorum was written on any node" || verdict fail "B: the subscription refused without quorum ($quser) is on a node"

# ================================================================ the end
wait "$loader" || true; loader=""
touch "$DIR/monitor.stop"; wait "$monitor_pid" || true; monitor_pid=""
(( E2 - L0 < SECS * 1000 - 2000 )) || verdict fail "the load ended before the drill did (at ${SECS} s, the drill at $(( (E2 - L0) / 1000 )) s): run with more --seconds"
out=$(cat "$DIR/load.json")
field() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2; }
echo "drill: in all $(field requests "$out") composite requests, $(field errorCount "$out") failed, $(field throughput "$out") req/s"
[[ $(field errorCount "$out") == 0 ]] && verdict ok "0 failed composite requests in the whole run" || { verdict fail "composite requests failed: $(grep -o '"errors":{.*' <<<"$out" | cut -c1-300)"; }
st=$(bash "$CLUSTER" status || true); echo "$st"
[[ $(grep -c 'Synced .*cluster size 3 *Primary' <<<"$st") == 3 ]] && verdict ok "the cluster is back to 3 Synced nodes" || verdict fail "the cluster is not back to 3 Synced nodes"
echo "drill: lease events:"
grep -h "leads the optimizer\|lost the optimizer\|stopped leading" "$DIR"/logs/r*.log | tail -8 || true
echo "drill: load average at the end $(cut -d' ' -f1-3 /proc/loadavg); samples in $DIR/leader.log"
if (( fail )); then echo "drill: FAIL"; exit 1; fi
echo "drill: OK"
