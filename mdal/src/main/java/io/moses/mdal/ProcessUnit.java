package io.moses.mdal;

import java.time.Instant;

/**
 * A deployment unit as the knowledge base holds it (without its bundle's bytes): its name, the
 * version of its last change, whether that change undeployed it (a tombstone), the bundle's size,
 * and which replica made the change when.
 */
public record ProcessUnit(String name, long version, boolean deleted, long bytes, String changedBy, Instant updated) {}
