#!/usr/bin/env bash
# Single, 1-out-of-n and hedged implementations of the trip planner's weather task in one run on one
# broker, under a heavy-tailed weather-a (lognormal, sigma 1.5) and a hung one: composite p50, p99,
# failures and the weather calls and cost per request, counted at the stubs (docs/benchmarks/2026-11-25-hedged-requests.md).
#   loadtest/bench-hedge.sh [--seconds 10] [--rounds 3] [--clients 4]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec "$("$ROOT/moses" java)" -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.HedgeBenchmark "$@"
