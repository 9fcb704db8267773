package io.moses.model;

import java.util.Locale;

/**
 * What the broker does with a user's requests above the rate it agreed ({@code l_u}): serve them
 * unchecked ({@link #OFF}), refuse them with HTTP 429 ({@link #REJECT}), or serve them only with
 * spare capacity and below every conforming request ({@link #BEST_EFFORT}). The broker has a
 * default ({@code --over-rate}); a service class may name its own.
 */
public enum OverRate {
    OFF, REJECT, BEST_EFFORT;

    /** The name used on the command line, in seeds, the knowledge base and APIs: off, reject, best-effort. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses off, reject or best-effort (any case), naming the field on error. */
    public static OverRate parse(String field, String value) {
        if (value != null)
            for (OverRate o : values()) if (o.label().equalsIgnoreCase(value.strip())) return o;
        throw new IllegalArgumentException(field + " must be off, reject or best-effort, was '" + value + "'");
    }
}
