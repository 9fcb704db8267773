#!/usr/bin/env bash
# Reactive against proactive SLA monitoring, in one run (docs/model.md, "Forecasts"): the trip
# planner at steady load, stubs with lognormal (sigma 1) latency, twice (a fresh broker with
# --monitors qos,ws,paths, then with qos,ws,paths,forecast). Each: a stationary phase (the false
# alarms: predictions and re-plans), then the flight provider gold's plan relies on most ramps
# linearly to 10x its start over two minutes. Per class: seconds in violation of R_max (5 s
# windows), requests over R_max, re-plans, the first prediction's lead. About 9 minutes.
#   loadtest/bench-proactive.sh [--warmup 30] [--stationary 60] [--ramp 120] [--hold 20] [--start-ms 250]
#                               [--factor 10] [--clients-per-user 3] [--period 1000]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec "$("$ROOT/moses" java)" -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.ProactiveBenchmark "$@"
