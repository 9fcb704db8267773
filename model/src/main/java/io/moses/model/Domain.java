package io.moses.model;

/** Domain checks of docs/model.md, "Entities"; each failure names the field. */
public final class Domain {
    private Domain() {}

    public static double positive(String field, double v) {
        if (!(v > 0) || Double.isInfinite(v)) throw new IllegalArgumentException(field + " must be > 0, was " + v);
        return v;
    }

    public static double nonNegative(String field, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) throw new IllegalArgumentException(field + " must be >= 0, was " + v);
        return v;
    }

    /** 0 &lt; a &lt;= 1. */
    public static double availability(String field, double v) {
        if (!(v > 0 && v <= 1)) throw new IllegalArgumentException(field + " must be in (0, 1], was " + v);
        return v;
    }

    /** 0 &lt; a &lt; 1: an SLA's minimum availability. */
    static double openUnit(String field, double v) {
        if (!(v > 0 && v < 1)) throw new IllegalArgumentException(field + " must be in (0, 1), was " + v);
        return v;
    }

    public static String name(String field, String v) {
        if (v == null || v.isBlank()) throw new IllegalArgumentException(field + " must not be empty");
        return v;
    }
}
