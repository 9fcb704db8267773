#!/usr/bin/env bash
# The engine's own ceiling: the trip planner on the broker's BpelEngine alone, partners answering
# at once in-process (no HTTP, no SOAP, no Adaptation Manager, no monitors), closed loop with
# CLIENTS threads. Prints req/s, CPU and bytes allocated per request for each round (the bytes
# move far less between runs than the CPU does); the first rounds are the JIT's warm-up. Read
# the whole broker's CPU per request (bench-throughput.sh) against it.
#
#   loadtest/bench-engine.sh [--clients 16] [--seconds 10] [--rounds 12] [--java-opts "..."]
#
# Brokers' java (`./moses java`, MOSES_JAVA overrides). Record results in the benchmark journal, docs/benchmarks/ (docs/performance.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS=16 SECONDS_PER_ROUND=10 ROUNDS=12 JAVA_OPTS_EXTRA=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --clients) CLIENTS="$2"; shift 2 ;;
    --seconds) SECONDS_PER_ROUND="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --java-opts) JAVA_OPTS_EXTRA="$2"; shift 2 ;;
    *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java 2>/dev/null)"
CP="$ROOT/broker-core/target/test-classes:$ROOT/broker-core/target/classes:$(cat "$ROOT/broker-core/target/classpath.txt")"
echo "bench-engine: trip planner on BpelEngine, in-process partners at 0 ms, $CLIENTS clients," \
  "$ROUNDS rounds of ${SECONDS_PER_ROUND} s; $("$JAVA" -version 2>&1 | head -1); $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
# shellcheck disable=SC2086
"$JAVA" $JAVA_OPTS_EXTRA -cp "$CP" io.moses.core.engine.EngineCeiling "$ROOT/bpel-processes/trip-planner" \
  "$CLIENTS" "$SECONDS_PER_ROUND" "$ROUNDS" 2>&1 | grep -E '^(round|not a reply)'
