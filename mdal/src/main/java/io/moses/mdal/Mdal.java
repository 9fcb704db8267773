package io.moses.mdal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.pool.HikariPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a {@link KnowledgeBase}. The database spec ({@code --db}) is one of:
 * <ul>
 *   <li>{@code mem:} or {@code mem:NAME}: in-memory H2 (gone when closed);</li>
 *   <li>a file path such as {@code data/moses} or {@code /var/lib/moses/kb}: embedded H2 in
 *       {@code PATH.mv.db} (directories are created);</li>
 *   <li>{@code jdbc:h2:...}: any H2 URL;</li>
 *   <li>{@code jdbc:mysql://host:port/db} or {@code jdbc:mariadb://host:port/db}: MySQL or
 *       MariaDB through MySQL Connector/J (the database must exist; MDAL creates the tables).</li>
 * </ul>
 * Credentials in the URL ({@code user=}/{@code password=} or {@code user:password@host}) win over
 * the {@link Credentials} passed in. Opening migrates the schema (Flyway, the same migrations on
 * both back-ends) and fails fast with UNAVAILABLE if the database cannot be reached.
 */
public final class Mdal {
    private static final Logger LOG = LoggerFactory.getLogger(Mdal.class);
    /** How long a call waits for a connection before it fails with UNAVAILABLE. */
    static final long CONNECTION_TIMEOUT_MS = 2000;
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)((?:password[0-9]*|pwd)=)[^&;]*"); // Connector/J takes password1= to password3= too
    private static final Pattern URL_USERINFO = Pattern.compile("(//[^/:@]*):[^/@]*@");
    private static final String MYSQL_TABLE_OPTIONS = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";

    private Mdal() {}

    /** Opens with credentials from the URL or else from {@link Credentials#fromEnvironment()}. */
    public static KnowledgeBase open(String dbSpec) {
        return open(dbSpec, Credentials.fromEnvironment());
    }

    public static KnowledgeBase open(String dbSpec, Credentials credentials) {
        Target t = target(dbSpec);
        HikariConfig cfg = new HikariConfig();
        cfg.setPoolName("mdal");
        cfg.setJdbcUrl(t.url());
        Credentials cred = credentials == null ? Credentials.NONE : credentials;
        if (!t.urlHasCredentials()) {
            if (cred.user() != null) cfg.setUsername(cred.user());
            if (cred.password() != null) cfg.setPassword(cred.password());
            else if (!t.mysql()) cfg.setPassword("");
        }
        if (!t.mysql() && cfg.getUsername() == null) cfg.setUsername("sa");
        cfg.setAutoCommit(false);
        cfg.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        cfg.setMaximumPoolSize(8);
        // No minimum idle: Hikari then makes connections only for waiting callers, so during an
        // outage it does not keep retrying with its back-off (up to 5 s) in the background, and the
        // first call after the database returns connects at once.
        cfg.setMinimumIdle(0);
        // Fail fast when the database is gone: the broker serves from memory meanwhile.
        cfg.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        cfg.setValidationTimeout(1000);
        cfg.setInitializationFailTimeout(1);
        cfg.setKeepaliveTime(60_000);
        if (t.mysql()) cfg.setExceptionOverride(new SQLExceptionOverride() {
            // a Galera node's "not ready" is no broken connection for the pool to log with its
            // stack trace: Database drops the connection itself and the next goes to a Synced node
            @java.lang.Override
            public SQLExceptionOverride.Override adjudicate(SQLException e) {
                return SqlErrors.nodeNotReady(e) ? SQLExceptionOverride.Override.DO_NOT_EVICT : SQLExceptionOverride.Override.CONTINUE_EVICT;
            }
        });
        GaleraNodes nodes = null;
        if (t.mysql() && multiHost(t.url())) {
            // several nodes: MDAL chooses each new connection's node (the first Synced one), not the driver
            nodes = new GaleraNodes(t.url(), cfg.getUsername(), cfg.getPassword());
            cfg.setDataSource(nodes);
            // The URL stays set though the pool uses the data source: Hikari sets a connection's
            // network timeout synchronously only when the URL (or the data source's class) says
            // MySQL. Otherwise Connector/J applies it on a thread of its own, and the restore of
            // the 30 s socket timeout after a new connection's 1 s set-up could land after the
            // borrower's first statement: a commit waiting for a killed Galera node's eviction
            // (3-5 s) then failed with "Read timed out" after 1 s (GaleraFailoverTest, in CI).
        }
        if (t.mysql() && galera(t.url(), nodes, cfg.getUsername(), cfg.getPassword())) {
            // Galera applies another node's commits a moment after they commit there: a read could
            // miss a row just written through another node (a replica on another node, or after a
            // failover). Causal reads wait until this node has applied what was committed before.
            cfg.setConnectionInitSql("SET SESSION wsrep_sync_wait = 1");
            LOG.info("knowledge base {} is a Galera cluster: causal reads (wsrep_sync_wait=1)", t.description());
        }
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(cfg);
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof SQLException s && ("28000".equals(s.getSQLState()) || s.getErrorCode() == 1045 || s.getErrorCode() == 28000))
                throw new KnowledgeBaseException(KnowledgeBaseException.Kind.INVALID, "cannot open knowledge base " + t.description()
                        + ": the database refused the credentials of user '" + (cfg.getUsername() == null ? "(given in the URL)" : cfg.getUsername()) + "' (" + s.getMessage() + ")", e);
            throw new KnowledgeBaseException(KnowledgeBaseException.Kind.UNAVAILABLE,
                    "cannot open knowledge base " + t.description() + ": " + cause.getMessage(), e);
        } catch (RuntimeException e) {
            throw new KnowledgeBaseException(KnowledgeBaseException.Kind.INVALID,
                    "cannot open knowledge base " + t.description() + ": " + e.getMessage(), e);
        }
        try {
            Flyway.configure()
                    .dataSource(ds)
                    .locations("classpath:io/moses/mdal/migration")
                    .placeholders(Map.of("tableOptions", t.mysql() ? MYSQL_TABLE_OPTIONS : "",
                            // MySQL's BLOB and TEXT hold 64 KB: a process's state and variables hold more
                            "blob", t.mysql() ? "LONGBLOB" : "BLOB",
                            "clob", t.mysql() ? "LONGTEXT" : "CLOB",
                            "timestamp", t.mysql() ? "DATETIME" : "TIMESTAMP"))
                    // versions are handed out to parallel changes, which merge in any order: a
                    // database already past a version applies it late instead of refusing to open
                    .outOfOrder(true)
                    .load()
                    .migrate();
        } catch (FlywayException e) {
            ds.close();
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            boolean down = SqlErrors.connectionProblem(e) || root instanceof SQLException s && SqlErrors.connectionProblem(s);
            throw new KnowledgeBaseException(down ? KnowledgeBaseException.Kind.UNAVAILABLE : KnowledgeBaseException.Kind.INTERNAL,
                    "cannot migrate knowledge base " + t.description() + ": " + KnowledgeBaseException.firstLine(e.getMessage()), e);
        }
        LOG.info("knowledge base opened: {}", t.description());
        return new JdbcKnowledgeBase(ds, t.description(), t.h2InMemory());
    }

    /** What a spec means: JDBC URL, back-end, a description without credentials. */
    record Target(String url, boolean mysql, boolean h2InMemory, boolean urlHasCredentials, String description) {}

    static Target target(String spec) {
        if (spec == null || spec.isBlank())
            throw KnowledgeBaseException.invalid("db must not be empty: give an H2 path, mem:, or a jdbc:mysql:/jdbc:mariadb: URL");
        String s = spec.strip();
        if (s.equals("mem:") || s.startsWith("mem:")) {
            String name = s.length() > 4 ? s.substring(4) : "moses-" + UUID.randomUUID();
            if (!name.matches("[A-Za-z0-9_.-]+"))
                throw KnowledgeBaseException.invalid("db: in-memory database name may only use letters, digits, '_', '.', '-': " + name);
            return new Target("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", false, true, false, "H2 mem:" + name);
        }
        if (s.startsWith("jdbc:h2:")) {
            boolean mem = s.startsWith("jdbc:h2:mem:");
            return new Target(s, false, mem, s.toLowerCase().contains("password="), "H2 " + mask(s));
        }
        if (s.startsWith("jdbc:mysql:") || s.startsWith("jdbc:mariadb:")) {
            // One driver for both: Connector/J speaks to MariaDB too.
            String url = s.startsWith("jdbc:mariadb:") ? "jdbc:mysql:" + s.substring("jdbc:mariadb:".length()) : s;
            url = withDefault(url, "connectTimeout", String.valueOf(CONNECTION_TIMEOUT_MS));
            url = withDefault(url, "socketTimeout", "30000");
            url = withDefault(url, "tcpKeepAlive", "true");
            // A row lock waited on past the socket timeout ends the connection ("Communications
            // link failure") instead of a lock timeout the caller retries: wait at most 10 s, as on H2.
            url = withDefault(url, "sessionVariables", "innodb_lock_wait_timeout=10");
            if (multiHost(url)) {
                // Several nodes (a Galera cluster): Connector/J's failover connects to the first that
                // answers; a connection that fails over must stay writable (every node is a primary).
                url = withDefault(url, "failOverReadOnly", "false");
            }
            boolean creds = url.matches("(?i).*[?&]user=.*") || URL_USERINFO.matcher(url).find()
                    || url.matches("jdbc:mysql://[^/@]+@.*");
            return new Target(url, true, false, creds, mask(s));
        }
        if (s.startsWith("jdbc:"))
            throw KnowledgeBaseException.invalid("db: unsupported JDBC URL '" + mask(s)
                    + "': use an H2 path, mem:, jdbc:h2:, jdbc:mysql: or jdbc:mariadb:");
        Path p = Path.of(s.endsWith(".mv.db") ? s.substring(0, s.length() - ".mv.db".length()) : s).toAbsolutePath().normalize();
        try {
            if (p.getParent() != null) Files.createDirectories(p.getParent());
        } catch (java.io.IOException e) {
            throw KnowledgeBaseException.invalid("db: cannot create directory " + p.getParent() + " (" + e.getClass().getSimpleName() + ")");
        }
        // WRITE_DELAY=0: a commit reaches the file before it returns (H2 would write it up to half a
        // second later), so what the broker accepted survives a SIGKILL: durable process instances,
        // an admitted user, a deployed unit. DB_CLOSE_ON_EXIT=FALSE: the broker closes the knowledge
        // base as it stops (on SIGTERM too); H2's own shutdown hook closed it first, under the
        // stopping broker's last reads and writes
        return new Target("jdbc:h2:file:" + p + ";LOCK_TIMEOUT=10000;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE", false, false, false,
                "H2 file " + p + ".mv.db");
    }

    /**
     * Whether the server is a Galera node (wsrep on). A server that cannot be asked (down,
     * refusing the credentials) is left to the pool to report; MySQL, which has no wsrep
     * variables, is not Galera.
     */
    private static boolean galera(String url, GaleraNodes nodes, String user, String password) {
        java.util.Properties p = new java.util.Properties();
        if (user != null) p.setProperty("user", user);
        if (password != null) p.setProperty("password", password);
        try (java.sql.Connection c = nodes != null ? nodes.getConnection() : java.sql.DriverManager.getConnection(url, p);
             java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) {
            return rs.next() && "ON".equalsIgnoreCase(rs.getString(2));
        } catch (SQLException e) {
            return false;
        }
    }

    /** A URL naming more than one host: {@code jdbc:mysql://h1:p1,h2:p2/db}. */
    static boolean multiHost(String url) {
        int start = url.indexOf("//");
        if (start < 0) return false;
        int end = url.indexOf('/', start + 2);
        String hosts = end < 0 ? url.substring(start + 2) : url.substring(start + 2, end);
        return hosts.contains(",");
    }

    private static String withDefault(String url, String key, String value) {
        if (url.matches("(?i).*[?&]" + key + "=.*")) return url;
        return url + (url.contains("?") ? "&" : "?") + key + "=" + value;
    }

    /** The URL without its password, for logs and messages. */
    static String mask(String url) {
        return URL_USERINFO.matcher(URL_PASSWORD.matcher(url).replaceAll("$1***")).replaceAll("$1:***@");
    }

}
