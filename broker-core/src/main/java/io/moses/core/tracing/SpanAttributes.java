package io.moses.core.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The spans' attribute names: OpenTelemetry's semantic conventions where one says it, the
 * broker's own under {@code moses.}.
 */
final class SpanAttributes {
    private SpanAttributes() {}

    // semantic conventions (HTTP, URL, server, client, error)
    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    static final AttributeKey<String> URL_SCHEME = AttributeKey.stringKey("url.scheme");
    static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> CLIENT_ADDRESS = AttributeKey.stringKey("client.address");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    // the composite request
    static final AttributeKey<String> COMPOSITE = AttributeKey.stringKey("moses.composite");
    static final AttributeKey<String> SERVICE = AttributeKey.stringKey("moses.service");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("moses.operation");
    static final AttributeKey<String> CLASS = AttributeKey.stringKey("moses.class");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("moses.outcome");

    // a request's wait (an event)
    static final AttributeKey<String> WAIT_VERDICT = AttributeKey.stringKey("moses.wait.verdict");
    static final AttributeKey<Double> WAIT_MS = AttributeKey.doubleKey("moses.wait.ms");

    // an invoke
    static final AttributeKey<String> TASK = AttributeKey.stringKey("moses.task");
    static final AttributeKey<String> IMPLEMENTATION = AttributeKey.stringKey("moses.implementation");
    static final AttributeKey<String> PATTERN = AttributeKey.stringKey("moses.pattern");
    static final AttributeKey<Long> PLAN_VERSION = AttributeKey.longKey("moses.plan.version");
    static final AttributeKey<String> ANSWERED_BY = AttributeKey.stringKey("moses.answered_by");

    // a call to a concrete service
    static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("moses.provider");
    static final AttributeKey<String> CALL_END = AttributeKey.stringKey("moses.call.end");
    static final AttributeKey<Boolean> RETRY = AttributeKey.booleanKey("moses.call.retry");
    static final AttributeKey<Boolean> HEDGE = AttributeKey.booleanKey("moses.call.hedge");
    static final AttributeKey<Boolean> EXPLORATION = AttributeKey.booleanKey("moses.call.exploration");
    static final AttributeKey<Boolean> TRIAL = AttributeKey.booleanKey("moses.call.trial");
    static final AttributeKey<Boolean> DISCARDED = AttributeKey.booleanKey("moses.call.discarded");
}
