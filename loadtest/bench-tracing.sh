#!/usr/bin/env bash
# What tracing costs (docs/tracing.md): three brokers of this build loaded at the same time by
# bench-pair.sh (trip planner, static binding, stubs at 0 ms): tracing off (no OTEL_* setting),
# sampled at 1 % (parentbased_traceidratio 0.01) and at 100 % (parentbased_always_on), the
# traced two exporting OTLP/HTTP to a local sink (io.moses.loadtest.bench.OtlpSink, which reads
# and drops what it gets). Prints bench-pair's rounds, the medians of CPU per request and
# throughput of each against "off", and what the sink received.
#
#   loadtest/bench-tracing.sh [--rounds 10] [--seconds 20] [--connections 8]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds|--seconds|--connections) ARGS+=("$1" "$2"); shift 2 ;;
    *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
"$ROOT/moses" build
JAVA="$("$ROOT/moses" java)"
SINK_LOG="$(mktemp /tmp/moses-otlp-sink.XXXXXX)"
"$JAVA" -cp "$ROOT/loadtest/target/classes:$(cat "$ROOT/loadtest/target/classpath.txt")" io.moses.loadtest.bench.OtlpSink --port 0 >"$SINK_LOG" 2>&1 &
SINK=$!
trap 'kill "$SINK" 2>/dev/null || true; wait "$SINK" 2>/dev/null || true; echo "sink: $(tail -1 "$SINK_LOG")"; rm -f "$SINK_LOG"' EXIT
for ((i = 0; i < 300; i++)); do grep -q "listening on" "$SINK_LOG" && break; sleep 0.1; done
SINK_URL="$(grep -oE 'http://[0-9.]+:[0-9]+' "$SINK_LOG" | head -1)"
[[ -n "$SINK_URL" ]] || { echo "bench-tracing: the OTLP sink did not start:" >&2; cat "$SINK_LOG" >&2; exit 1; }
# system properties: the SDK reads them as it reads OTEL_* variables, and they are per broker here
TRACED="-Dotel.exporter.otlp.endpoint=$SINK_URL -Dotel.service.name=moses-bench"
echo "bench-tracing: off, 1 % and 100 % sampled, spans to $SINK_URL; $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
"$ROOT/loadtest/bench-pair.sh" --variant off=current --variant sampled1=current --variant sampled100=current \
  --opts "sampled1=$TRACED -Dotel.traces.sampler=parentbased_traceidratio -Dotel.traces.sampler.arg=0.01" \
  --opts "sampled100=$TRACED -Dotel.traces.sampler=parentbased_always_on" \
  --ratio sampled100/sampled1 "${ARGS[@]+"${ARGS[@]}"}"
