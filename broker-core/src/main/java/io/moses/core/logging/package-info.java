/**
 * The broker's log lines as logback writes them (src/main/resources/logback.xml): the text
 * format's trace id ({@link io.moses.core.logging.TraceIdSuffix}) and the JSON format
 * ({@link io.moses.core.logging.JsonLines}), chosen by {@code moses run --log-format}. The ids
 * come from the MDC, which {@code io.moses.core.tracing.LogIds} fills while a traced request's
 * span is current (docs/tracing.md, "Trace ids in the log").
 */
package io.moses.core.logging;
