#!/usr/bin/env bash
# How the broker keeps every class's SLA through a provider outage and a slowdown: failures per class
# during an outage, time to a plan without the down service, time back in the plan after recovery,
# time to a plan after a 10 -> 300 ms slowdown and to each class's mean response time recovered; medians.
#   loadtest/bench-adaptation.sh [--trials 3] [--period 1000] [--singles]
# --singles: a plan of single services and the optimizer off, so only the request path reacts.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec "$("$ROOT/moses" java)" -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.AdaptationBenchmark "$@"
