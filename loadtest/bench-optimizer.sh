#!/usr/bin/env bash
# Optimization Engine: planning time against size (classes x tasks x services per task), lp_solve
# (Debian's liblpsolve55.so) and COIN-OR Clp (Debian's libClp.so.1, package coinor-libclp1), both
# through JNA, each whole-program simplex against column generation, optionally ojAlgo, on the
# trip planner and synthetic composites up to 50 x 50 x 8. CPU time of the planning thread, wall
# time and the load average per row (the machine may be shared). Rows print as each size
# finishes (50 x 50 x 8 over lp_solve takes minutes).
#   loadtest/bench-optimizer.sh [REPS] [MAX_COLUMNS_FOR_SIMPLEX] [ojalgo]
#   (defaults: 5 repetitions per size, trip planner 40; whole-program simplex up to 50,000 columns)
# Prints a Markdown table; record it in the benchmark journal (docs/benchmarks/, the last run: 2026-11-23-optimization-engine.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# -am: the model module comes from this tree (the reactor), not from a stale local repository
mvn -B -q -o -pl optimization-engine -am test-compile dependency:build-classpath \
  -Dmdep.outputFile="$ROOT/optimization-engine/target/test-classpath.txt" >/dev/null
M="$ROOT/optimization-engine/target"
exec "$("$ROOT/moses" java)" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$M/classes:$M/test-classes:$(cat "$M/test-classpath.txt")" io.moses.optimizer.OptimizerBenchmark "$@"
