#!/usr/bin/env bash
# Time from a change at a concrete service (down, or slowed to 1 s) to the new plan in force,
# under a steady load; monitor and probe period 1 s unless --period says otherwise.
#   loadtest/bench-adaptation.sh [--trials 5] [--period 1000]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec java -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.AdaptationBenchmark "$@"
