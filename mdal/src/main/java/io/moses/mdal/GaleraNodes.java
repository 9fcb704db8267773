package io.moses.mdal;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes a multi-host URL names ({@code jdbc:mysql://h1:p1,h2:p2,h3:p3/db}), as the pool's
 * source of new connections: each goes to the first node, in the URL's order, that is Synced
 * in the primary component ({@code wsrep_local_state} 4, {@code wsrep_ready} ON). A node that
 * is joining, a donor, desynced or cut off from the majority is passed over, though it accepts
 * connections: Connector/J's own failover would send them to the first node that answers, and
 * a node restarted after a crash answers (every query with "not ready") a few seconds before it
 * has caught up, which once held the leader's lease renewals until the lease ran out.
 *
 * <p>The check is one {@code SHOW GLOBAL STATUS} when a connection is opened, never per
 * transaction: the pool keeps its connections, and drops one whose node fails or leaves the
 * primary component (its queries then fail), so the next one is chosen again. A server without
 * Galera (no {@code wsrep_local_state}) is used as it is.
 */
final class GaleraNodes implements DataSource {
    private static final Logger LOG = LoggerFactory.getLogger(GaleraNodes.class);
    /** {@code wsrep_local_state} of a node that has applied everything the cluster committed. */
    static final String SYNCED = "4";
    static final String STATE_QUERY = "SHOW GLOBAL STATUS WHERE Variable_name IN "
            + "('wsrep_local_state', 'wsrep_local_state_comment', 'wsrep_ready', 'wsrep_cluster_status')";

    private final List<String> nodeUrls;
    private final String user;
    private final String password;
    /** The node the last new connection went to, for one log line per change. */
    private volatile String lastNode;
    private volatile int loginTimeout;

    /**
     * @param url a multi-host {@code jdbc:mysql:} URL
     * @param user the user, or null when the URL names it
     * @param password its password, or null
     */
    GaleraNodes(String url, String user, String password) {
        this.nodeUrls = nodeUrls(url);
        this.user = user;
        this.password = password;
    }

    /**
     * One single-host URL per host of {@code url}, in its order, each with the URL's database and
     * parameters: {@code jdbc:mysql://a:1,b:2/db?x=y} gives {@code jdbc:mysql://a:1/db?x=y} and
     * {@code jdbc:mysql://b:2/db?x=y}. A user and password before the first host apply to all.
     */
    static List<String> nodeUrls(String url) {
        int start = url.indexOf("//");
        if (start < 0) throw KnowledgeBaseException.invalid("db: no hosts in '" + Mdal.mask(url) + "'");
        int end = url.indexOf('/', start + 2);
        int query = url.indexOf('?', start + 2);
        if (end < 0 || query >= 0 && query < end) end = query < 0 ? url.length() : query;
        String scheme = url.substring(0, start + 2), rest = url.substring(end);
        String hosts = url.substring(start + 2, end);
        String userInfo = "";
        int at = hosts.indexOf('@');
        int comma = hosts.indexOf(',');
        if (at >= 0 && (comma < 0 || at < comma)) {
            userInfo = hosts.substring(0, at + 1);
            hosts = hosts.substring(at + 1);
        }
        List<String> out = new ArrayList<>();
        int depth = 0, from = 0;
        for (int i = 0; i <= hosts.length(); i++) {
            char ch = i < hosts.length() ? hosts.charAt(i) : ',';
            if (ch == '(' || ch == '[') depth++;
            else if (ch == ')' || ch == ']') depth--;
            else if (ch == ',' && depth == 0) {
                String h = hosts.substring(from, i).strip();
                if (!h.isEmpty()) out.add(scheme + userInfo + h + rest);
                from = i + 1;
            }
        }
        if (out.isEmpty()) throw KnowledgeBaseException.invalid("db: no hosts in '" + Mdal.mask(url) + "'");
        return List.copyOf(out);
    }

    List<String> nodeUrls() {
        return nodeUrls;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return getConnection(user, password);
    }

    @Override
    public Connection getConnection(String username, String pass) throws SQLException {
        Properties p = new Properties();
        if (username != null) p.setProperty("user", username);
        if (pass != null) p.setProperty("password", pass);
        List<String> passedOver = new ArrayList<>();
        SQLException lastFailure = null;
        boolean someAnswered = false;
        for (String url : nodeUrls) {
            String node = host(url);
            Connection c;
            try {
                c = DriverManager.getConnection(url, p);
            } catch (SQLException e) {
                lastFailure = e;
                if (SqlErrors.nodeNotReady(e)) { // refused the connection's set-up queries: outside the primary component
                    someAnswered = true;
                    passedOver.add(node + " is not ready");
                    continue;
                }
                if (!SqlErrors.connectionProblem(e)) throw e; // refused credentials, unknown database: the same on every node
                passedOver.add(node + " does not answer (" + KnowledgeBaseException.firstLine(e.getMessage()) + ")");
                continue;
            }
            String why;
            try {
                why = unusable(c);
            } catch (SQLException e) {
                closeQuietly(c);
                lastFailure = e;
                passedOver.add(node + " failed its state query (" + KnowledgeBaseException.firstLine(e.getMessage()) + ")");
                continue;
            }
            if (why == null) {
                if (!node.equals(lastNode)) {
                    lastNode = node;
                    LOG.info("knowledge base: new connections go to Galera node {}{}", node,
                            passedOver.isEmpty() ? "" : " (passed over: " + String.join("; ", passedOver) + ")");
                }
                return c;
            }
            closeQuietly(c);
            someAnswered = true;
            passedOver.add(node + " is " + why);
        }
        lastNode = null;
        String all = String.join("; ", passedOver);
        if (someAnswered)
            // the error a node outside the primary component answers with: the knowledge base reports it as such
            throw new SQLException("no Galera node is Synced in the primary component: " + all, "08S01", SqlErrors.WSREP_NOT_READY, lastFailure);
        throw new SQLNonTransientConnectionException("no Galera node answers: " + all, "08001", lastFailure);
    }

    /**
     * Why a new connection's node must not be used ("Joined, wsrep_ready OFF, non-Primary"), or
     * null when it is Synced and ready, or is no Galera node.
     */
    static String unusable(Connection c) throws SQLException {
        Map<String, String> v = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(STATE_QUERY)) {
            while (rs.next()) v.put(rs.getString(1).toLowerCase(java.util.Locale.ROOT), rs.getString(2));
        }
        String state = v.get("wsrep_local_state");
        if (state == null) return null; // no Galera provider loaded: a plain server
        boolean ready = "ON".equalsIgnoreCase(v.get("wsrep_ready"));
        if (SYNCED.equals(state) && ready) return null;
        return v.getOrDefault("wsrep_local_state_comment", "state " + state) + ", wsrep_ready " + (ready ? "ON" : "OFF")
                + ", " + v.getOrDefault("wsrep_cluster_status", "?");
    }

    /** {@code host:port} of a single-host URL, without credentials. */
    static String host(String url) {
        int start = url.indexOf("//") + 2;
        int end = start;
        while (end < url.length() && url.charAt(end) != '/' && url.charAt(end) != '?') end++;
        String h = url.substring(start, end);
        return h.substring(h.lastIndexOf('@') + 1);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // a connection passed over
        }
    }

    // ------------------------------------------------------------------ the rest of DataSource

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // logs go to SLF4J
    }

    /** Kept for the pool; each node's connect timeout is the URL's {@code connectTimeout}. */
    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("logs go to SLF4J");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        throw new SQLException("not a wrapper of " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
