package io.moses.mdal;

/**
 * The one exception MDAL throws. {@link #kind()} says what went wrong; the message names the
 * field or record concerned and never contains a credential.
 */
public class KnowledgeBaseException extends RuntimeException {

    public enum Kind {
        /** The database cannot be reached (down, refused, timed out) or the knowledge base is closed. */
        UNAVAILABLE,
        /** A value outside its domain, an unknown reference, a malformed seed or spec. */
        INVALID,
        /** A duplicate name, or a record still referenced by others. */
        CONFLICT,
        /** The record named does not exist. */
        NOT_FOUND,
        /** Anything else the database reported. */
        INTERNAL
    }

    private final Kind kind;

    public KnowledgeBaseException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public KnowledgeBaseException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** The first line of a cause's message (drivers and parsers append context lines): a one-line reason. */
    static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    static KnowledgeBaseException invalid(String message) {
        return new KnowledgeBaseException(Kind.INVALID, message);
    }

    static KnowledgeBaseException conflict(String message) {
        return new KnowledgeBaseException(Kind.CONFLICT, message);
    }

    static KnowledgeBaseException notFound(String message) {
        return new KnowledgeBaseException(Kind.NOT_FOUND, message);
    }

    @Override
    public String toString() {
        return "KnowledgeBaseException[" + kind + "]: " + getMessage();
    }
}
