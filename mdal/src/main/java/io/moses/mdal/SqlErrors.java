package io.moses.mdal;

import io.moses.mdal.KnowledgeBaseException.Kind;
import java.net.ConnectException;
import java.net.SocketException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns H2 and MySQL/MariaDB errors into {@link KnowledgeBaseException}s that name the field. */
final class SqlErrors {
    private static final Pattern CHECK_NAME = Pattern.compile("ck_([a-z_]+)", Pattern.CASE_INSENSITIVE);
    private static final String[] TABLES = {"service_class", "app_user", "composite_service", "task", "concrete_service",
            "plan_head", "plan_share", "plan_prediction", "plan_at_risk", "plan", "service_qos", "visits", "sla_event"};

    /**
     * ER_UNKNOWN_COM_ERROR as a Galera node answers every query while it is outside the primary
     * component ("WSREP has not yet prepared node for application use"): quorum lost, or joining.
     */
    static final int WSREP_NOT_READY = 1047;

    private SqlErrors() {}

    /** Deadlocks, lock timeouts and H2's concurrent-update error: the transaction may be retried. */
    static boolean retryable(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            int code = s.getErrorCode();
            if ("40001".equals(s.getSQLState()) || code == 1213 || code == 1205 || code == 90131 || code == 50200)
                return true;
            if (s.getNextException() == s) break;
        }
        return false;
    }

    /**
     * A Galera node outside the primary component (joining, or quorum lost): "not ready", or a
     * write that lost the primary component under way (ER_ERROR_DURING_COMMIT, 1180, "... Not
     * connected to Primary Component", seen on the lease's write in the drill).
     */
    static boolean nodeNotReady(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && (s.getErrorCode() == WSREP_NOT_READY
                    || s.getErrorCode() == 1180 && String.valueOf(s.getMessage()).contains("Not connected to Primary Component")))
                return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    static boolean duplicateKey(SQLException e) {
        return e.getErrorCode() == 23505 || e.getErrorCode() == 1062;
    }

    static boolean connectionProblem(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException || t instanceof ConnectException || t instanceof SocketException)
                return true;
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                if (state != null && state.startsWith("08")) return true;
                int code = s.getErrorCode();
                if (code == 90067 || code == 90098 || code == 90121) return true; // H2: connection broken, database closed
            }
            if (t.getClass().getName().endsWith("CommunicationsException")) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    /**
     * @param what the operation, naming its record (for example "add concrete service 'flight-a'")
     * @param description the database, without credentials
     */
    static KnowledgeBaseException translate(String what, String description, SQLException e) {
        if (nodeNotReady(e))
            return new KnowledgeBaseException(Kind.UNAVAILABLE, what + ": knowledge base unavailable (" + description
                    + "): no Galera node it reaches is Synced in the primary component (a majority of the nodes is down, or the"
                    + " nodes are still joining); nothing is written until a majority is back", e);
        if (connectionProblem(e))
            return new KnowledgeBaseException(Kind.UNAVAILABLE,
                    what + ": knowledge base unavailable (" + description + "): " + KnowledgeBaseException.firstLine(e.getMessage()), e);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        int code = e.getErrorCode();
        String msg = e.getMessage() == null ? "" : e.getMessage();
        if (code == 23513 || code == 4025 || code == 3819 || msg.toLowerCase(Locale.ROOT).contains("check constraint")) {
            Matcher m = CHECK_NAME.matcher(msg);
            String field = m.find() ? field(m.group(1).toLowerCase(Locale.ROOT)) : "a value";
            return new KnowledgeBaseException(Kind.INVALID,
                    what + ": " + field + " is outside its domain (refused by the database's CHECK constraint)", e);
        }
        if (code == 23505 || code == 1062)
            return new KnowledgeBaseException(Kind.CONFLICT, what + ": a record with that name already exists", e);
        if (code == 23506 || code == 1452)
            return new KnowledgeBaseException(Kind.INVALID, what + ": refers to a record that does not exist", e);
        if (code == 23503 || code == 1451)
            return new KnowledgeBaseException(Kind.CONFLICT, what + ": the record is still referenced by others", e);
        if (code == 22001 || code == 1406)
            return new KnowledgeBaseException(Kind.INVALID, what + ": a value is too long", e);
        if (code == 23502 || code == 1048)
            return new KnowledgeBaseException(Kind.INVALID, what + ": a required value is missing", e);
        if (state.startsWith("23"))
            return new KnowledgeBaseException(Kind.INVALID, what + ": refused by a database constraint: " + KnowledgeBaseException.firstLine(msg), e);
        return new KnowledgeBaseException(Kind.INTERNAL, what + ": database error " + state + "/" + code + ": " + KnowledgeBaseException.firstLine(msg), e);
    }

    /** ck_concrete_service_availability -> concrete_service.availability */
    static String field(String constraint) {
        for (String t : TABLES)
            if (constraint.startsWith(t + "_")) return t + "." + constraint.substring(t.length() + 1);
        return constraint;
    }

}
