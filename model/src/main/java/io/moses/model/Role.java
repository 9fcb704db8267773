package io.moses.model;

import java.util.Locale;

/**
 * What a user may do. A {@link #USER} calls composite services and manages its own
 * subscription; an {@link #OPERATOR} also manages concrete services, processes and classes and
 * reads the admin API.
 */
public enum Role {
    USER, OPERATOR;

    /** The lower-case name used in seeds, the knowledge base and APIs ("user", "operator"). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses "user" or "operator" (any case), naming the field on error. */
    public static Role parse(String field, String value) {
        if (value != null)
            for (Role r : values()) if (r.label().equalsIgnoreCase(value.strip())) return r;
        throw new IllegalArgumentException(field + " must be user or operator, was '" + value + "'");
    }
}
