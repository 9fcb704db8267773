package io.moses.mdal;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The knowledge base's database as the BPEL engine's durable process store reaches it: Apache
 * ODE's own DAO and scheduler write their tables (migrated with the others) through
 * connections that join the engine's transactions, which a pool of their own manages. These
 * connections are unpooled, go to the knowledge base's server (the first Synced node of a Galera
 * cluster) with its credentials, and read causally on Galera, as MDAL's own do.
 *
 * @param connections a new connection per call, auto-commit on (the caller's pool changes it)
 * @param mysql       MySQL or MariaDB (else H2): the dialect ODE's mapping needs
 * @param description the database, without credentials
 */
public record ProcessDatabase(DataSource connections, boolean mysql, String description) {

    static ProcessDatabase of(HikariDataSource pool, String description) {
        boolean mysql = pool.getJdbcUrl() != null && pool.getJdbcUrl().startsWith("jdbc:mysql:");
        return new ProcessDatabase(new Unpooled(pool), mysql, description);
    }

    /** New connections with the pool's settings, for a pool that is not Hikari's. */
    private static final class Unpooled implements DataSource {
        private final DataSource nodes; // Galera nodes chosen by MDAL, or null: the URL's server
        private final String url;
        private final String user;
        private final String password;
        private final String initSql;

        Unpooled(HikariDataSource pool) {
            this.nodes = pool.getDataSource();
            this.url = pool.getJdbcUrl();
            this.user = pool.getUsername();
            this.password = pool.getPassword();
            this.initSql = pool.getConnectionInitSql();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection c = nodes != null ? nodes.getConnection() : DriverManager.getConnection(url, user, password);
            if (initSql != null) {
                try (Statement s = c.createStatement()) {
                    s.execute(initSql);
                } catch (SQLException e) {
                    c.close();
                    throw e;
                }
            }
            return c;
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("the knowledge base's credentials are fixed");
        }

        @Override public PrintWriter getLogWriter() { return null; }
        @Override public void setLogWriter(PrintWriter out) {}
        @Override public void setLoginTimeout(int seconds) {}
        @Override public int getLoginTimeout() { return 0; }
        @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { throw new SQLFeatureNotSupportedException(); }
        @Override public <T> T unwrap(Class<T> iface) throws SQLException { throw new SQLException("not a wrapper"); }
        @Override public boolean isWrapperFor(Class<?> iface) { return false; }
    }
}
