#!/usr/bin/env bash
# A provider that hangs (accepts calls, answers none), with the stall watch and without it
# (MOSES_STALL_WATCH=off), in one run (docs/model.md, "Reaction between plans"): the trip planner
# on its seed, open-loop load (a fixed rate); for payment (not idempotent) and weather (idempotent) the
# provider that took most of the task's calls hangs for 30 s. Per variant: requests failed or
# over 3 s, p99 against the healthy p99, calls the hung provider received. About 5 minutes.
#   loadtest/bench-hang.sh [--warmup 20] [--healthy 15] [--hang 30] [--rate 40]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/moses" build
cp() { echo "$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/classpath.txt")"; }
exec "$("$ROOT/moses" java)" -Dmoses.home="$ROOT" -Dmoses.broker.classpath="$(cp broker-core)" -cp "$(cp loadtest)" \
  io.moses.loadtest.bench.HangBenchmark "$@"
