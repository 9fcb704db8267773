#!/usr/bin/env bash
# The knowledge base's own operations (plan publication, subscription, service change, a
# replica's window write, the plan-version poll) on one MariaDB against three Galera nodes, in
# one run, interleaved (io.moses.mdal.KnowledgeBaseBench). Both are started in temporary
# directories on free ports and stopped at the end. Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
#   loadtest/bench-galera.sh [ROUNDS] [CALLS_PER_ROUND]     (default 5 60)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# one reactor run: the class path names the sibling modules' target/classes, not ~/.m2's jars;
# every module writes the file in turn, mdal (the last) last
cp="$ROOT/target/galera-bench.classpath"; mkdir -p "$ROOT/target"
mvn -B -q -pl mdal -am test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp" >/dev/null
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
cd mdal # GaleraCluster finds cluster/galera.sh from here up
exec "$("$ROOT/moses" java 2>/dev/null)" -cp "$ROOT/mdal/target/test-classes:$ROOT/mdal/target/classes:$(cat "$cp")" \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn io.moses.mdal.KnowledgeBaseBench "$@"
