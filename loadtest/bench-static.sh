#!/usr/bin/env bash
# Trip planner throughput and latency, static binding against adaptive binding (a plan of the
# same single services), in one run; closed loop, N clients, T seconds per run, R rounds.
#   loadtest/bench-static.sh [--clients 8] [--seconds 15] [--rounds 3] [--latency 5] [--bindings static,adaptive]
# Prints every run, the medians and the ratios; record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec "$("$ROOT/moses" java)" -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.BindingBenchmark "$@"
