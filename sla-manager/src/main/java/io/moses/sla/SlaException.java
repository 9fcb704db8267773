package io.moses.sla;

/**
 * A refused management call: a code a program can test and a message a person can read. The
 * SOAP endpoints turn it into a fault with both, the JSON API into an HTTP status.
 */
public final class SlaException extends RuntimeException {

    public enum Code {
        /** a value outside its domain, a malformed endpoint, a missing field: HTTP 400 */
        INVALID(400),
        UNKNOWN_CLASS(404),
        UNKNOWN_USER(404),
        UNKNOWN_TASK(404),
        UNKNOWN_SERVICE(404),
        DUPLICATE_USER(409),
        DUPLICATE_SERVICE(409),
        DUPLICATE_CLASS(409),
        /** a class that users still subscribe to cannot be removed: HTTP 409 */
        CLASS_IN_USE(409),
        /** a class SLA the plan cannot keep for its subscribers: HTTP 409 */
        IMPOSSIBLE_SLA(409),
        /** the plan cannot do without this service (it is the last one of a task): HTTP 409 */
        LAST_SERVICE(409),
        /** no credentials, or wrong ones: HTTP 401 */
        UNAUTHENTICATED(401),
        /** authenticated but not allowed (another user's subscription, not an operator): HTTP 403 */
        FORBIDDEN(403),
        /** other subscription changes kept winning the race: try again; HTTP 409 */
        BUSY(409),
        /** the knowledge base or the optimizer cannot answer now: HTTP 503 */
        UNAVAILABLE(503);

        private final int httpStatus;

        Code(int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    private final Code code;

    public SlaException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public Code code() {
        return code;
    }

    /**
     * A knowledge-base failure as a management caller sees it: {@code notFound} and
     * {@code conflict} say what was missing or clashed for the manager at hand.
     */
    static SlaException from(io.moses.mdal.KnowledgeBaseException e, Code notFound, Code conflict) {
        return switch (e.kind()) {
            case UNAVAILABLE -> new SlaException(Code.UNAVAILABLE, "knowledge base unavailable: " + e.getMessage());
            case NOT_FOUND -> new SlaException(notFound, e.getMessage());
            case CONFLICT -> new SlaException(conflict, e.getMessage());
            default -> new SlaException(Code.INVALID, e.getMessage());
        };
    }

    /** Runs a knowledge-base call, turning its failure into a refusal with {@code translate}. */
    static <T> T orRefuse(java.util.function.Supplier<T> call,
                          java.util.function.Function<io.moses.mdal.KnowledgeBaseException, SlaException> translate) {
        try {
            return call.get();
        } catch (io.moses.mdal.KnowledgeBaseException e) {
            throw translate.apply(e);
        }
    }
}
