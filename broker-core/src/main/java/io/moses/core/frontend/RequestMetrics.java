package io.moses.core.frontend;

/** Where the front-end reports each composite request. */
@FunctionalInterface
public interface RequestMetrics {
    void composite(String composite, String outcome, long nanos);
}
