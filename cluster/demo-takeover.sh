#!/usr/bin/env bash
# ./moses demo takeover [--orders N]: durable conversations outlive their replica. Starts a cluster
# of two replicas over MariaDB behind HAProxy (./moses cluster up, in work/demo-takeover) with the
# durable order-confirmation process, places N orders through the front (HAProxy spreads them over
# both replicas), SIGKILLs r2, then confirms every order through the front and prints how many
# continued, which replica took r2's over, and a verdict: OK only if every order was confirmed
# and r2 held some of them. The cluster is stopped at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORDERS=10
while (( $# )); do
  case "$1" in
    --orders) ORDERS="${2:?--orders needs a number}"; shift 2 ;;
    *) echo "demo takeover: unknown option $1 (--orders N)" >&2; exit 2 ;;
  esac
done
[[ $ORDERS =~ ^[1-9][0-9]?$ ]] || { echo "demo takeover: --orders needs 1 to 99, got '$ORDERS'" >&2; exit 2; }
export MOSES_CLUSTER_DIR="${MOSES_CLUSTER_DIR:-$ROOT/work/demo-takeover}"
UNIT="$ROOT/bpel-processes/order-confirmation"
NS=urn:moses:order-confirmation
say() { printf 'demo: %s\n' "$*"; }
trap 'say "stopping the cluster"; "$ROOT/moses" cluster down >/dev/null 2>&1 || true' EXIT

say "starting two replicas, MariaDB and HAProxy (about a minute) ..."
"$ROOT/moses" cluster up --replicas 2 --seed "$UNIT/seed.yaml" --deploy "$UNIT" >/dev/null
# shellcheck disable=SC1090,SC1091
source "$MOSES_CLUSTER_DIR/state"
FRONT="http://127.0.0.1:$FRONT_PORT"

soap() { # operation fields -> the answer's body (HTTP status on the last line)
  curl -s --max-time 90 -w '\n%{http_code}' -H 'Content-Type: text/xml; charset=utf-8' -H "SOAPAction: \"$NS/$1\"" \
    --data "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body><o:$1 xmlns:o='$NS'>$2</o:$1></s:Body></s:Envelope>" \
    "$FRONT/services/OrderConfirmationService"
}
status_of() { sed -n 's/.*<[a-z]*:*status>\([^<]*\)<.*/\1/p' <<<"$1" | head -1; }

say "placing $ORDERS orders through $FRONT (each waits 10 minutes for its confirmation)"
for i in $(seq 1 "$ORDERS"); do
  a=$(soap placeOrder "<o:orderId>demo-$i</o:orderId><o:item>widget</o:item><o:quantity>1</o:quantity><o:expiresAfter>PT10M</o:expiresAfter>")
  [[ $(status_of "$a") == placed ]] || { say "order demo-$i was not placed: ${a//$'\n'/ }"; say "verdict: FAILED"; exit 1; }
done
say "killing replica r2 (SIGKILL, pid $PID_r2)"
kill -KILL "$PID_r2"
start=$SECONDS
confirmed=0
for i in $(seq 1 "$ORDERS"); do
  a=$(soap confirm "<o:orderId>demo-$i</o:orderId>")
  if [[ $(status_of "$a") == confirmed ]]; then confirmed=$((confirmed + 1)); else say "order demo-$i: ${a//$'\n'/ }"; fi
done
say "$confirmed of $ORDERS orders confirmed after r2 was killed ($((SECONDS - start)) s, the first ones waited for the takeover)"
took=$(grep -o 'took over replica r2.*' "$MOSES_CLUSTER_DIR/logs/r1.log" | head -1 || true)
if [[ -n $took ]]; then say "r1: $took"; else say "r1 took nothing over (no order lived on r2?)"; fi
if (( confirmed == ORDERS )) && [[ $took =~ :\ ([1-9][0-9]*)\ durable ]]; then
  say "verdict: OK (every order continued; r2's ${BASH_REMATCH[1]} durable instance(s) continued on r1)"
else
  say "verdict: FAILED"
  exit 1
fi
