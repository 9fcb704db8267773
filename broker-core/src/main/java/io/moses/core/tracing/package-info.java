/**
 * OpenTelemetry traces of the broker (docs/tracing.md): a server span per composite request, an
 * internal span per partner invoke, a client span per call to a concrete service, exported over
 * OTLP as the standard {@code OTEL_*} settings say, and W3C trace context in and out. Off, the
 * default, it builds no SDK and the request path only checks one flag.
 */
package io.moses.core.tracing;
