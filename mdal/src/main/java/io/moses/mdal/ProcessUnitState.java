package io.moses.mdal;

import java.time.Instant;

/**
 * What one replica has made of a stored unit: the version it applied last, or the version it
 * failed to apply with the error (null when it applied it).
 */
public record ProcessUnitState(String replica, String unit, long version, String error, Instant at) {
    public boolean failed() {
        return error != null;
    }
}
