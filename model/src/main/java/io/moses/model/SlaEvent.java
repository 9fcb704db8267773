package io.moses.model;

import java.time.Instant;

/**
 * Something that happened to an SLA: a violation, a rejected admission, a period at risk, a user
 * above its agreed rate, a violation predicted before it happens, and a prediction that did not
 * come true (docs/model.md, "Forecasts").
 */
public record SlaEvent(Instant at, Kind kind, String serviceClass, String user, String detail) {
    public enum Kind { VIOLATION, REJECTION, AT_RISK, OVER_RATE, PREDICTED_VIOLATION, PREDICTION_MISSED }
}
