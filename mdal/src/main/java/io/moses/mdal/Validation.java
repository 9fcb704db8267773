package io.moses.mdal;

import io.moses.model.TaskRef;
import java.util.function.UnaryOperator;

/** Checks the record stores make before they write: every failure is INVALID and names the field. */
final class Validation {
    static final int NAME_MAX = 100;
    static final int TASK_MAX = 200;
    static final int ENDPOINT_MAX = 2000;
    static final int TEXT_MAX = 2000;

    private Validation() {}

    static String name(String field, String v, int max) {
        if (v == null || v.isBlank()) throw KnowledgeBaseException.invalid(field + " must not be empty");
        if (v.length() > max) throw KnowledgeBaseException.invalid(field + " must be at most " + max + " characters, was " + v.length());
        return v;
    }

    static double finiteNonNegative(String field, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) throw KnowledgeBaseException.invalid(field + " must be a number >= 0, was " + v);
        return v;
    }

    static double finite(String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) throw KnowledgeBaseException.invalid(field + " must be a finite number, was " + v);
        return v;
    }

    static void task(String field, TaskRef t) {
        if (t == null) throw KnowledgeBaseException.invalid(field + " must not be empty");
        name(field + ".composite", t.composite(), NAME_MAX);
        name(field + ".name", t.name(), TASK_MAX);
    }

    /** Runs a caller's change; a record constructor's IllegalArgumentException becomes INVALID. */
    static <T> T apply(String what, UnaryOperator<T> change, T current) {
        T next;
        try {
            next = change.apply(current);
        } catch (IllegalArgumentException e) {
            throw KnowledgeBaseException.invalid(what + ": " + e.getMessage());
        }
        if (next == null) throw KnowledgeBaseException.invalid(what + ": the change returned null");
        return next;
    }

    static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
