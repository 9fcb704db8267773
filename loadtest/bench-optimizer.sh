#!/usr/bin/env bash
# Optimization Engine: solve time against size (classes x tasks x services per task) for lp_solve
# (JNA, Debian's liblpsolve55.so) and ojAlgo, on the trip planner and synthetic composites.
#   loadtest/bench-optimizer.sh [REPS]      (default 5 repetitions per size; trip planner 20)
# Prints a Markdown table; record it in docs/benchmarks.md (section "Optimization Engine").
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mvn -B -q -o -pl optimization-engine test-compile dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/optimization-engine/target/test-classpath.txt" >/dev/null
M="$ROOT/optimization-engine/target"
exec java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$M/classes:$M/test-classes:$(cat "$M/test-classpath.txt")" io.moses.optimizer.OptimizerBenchmark "$@"
