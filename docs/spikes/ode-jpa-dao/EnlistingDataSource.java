package spike;

import java.io.PrintWriter;
import java.lang.reflect.*;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.*;

/**
 * Minimal JTA-aware DataSource: one XAConnection per JTA transaction, enlisted in it;
 * the handed-out Connection's close() is a no-op until the transaction completes.
 * Outside a transaction it hands out a plain (auto-commit) connection.
 * (ODE itself used geronimo-connector + tranql for this.)
 */
public class EnlistingDataSource implements DataSource {
    private final XADataSource xads;
    private final DataSource plain;
    private final TransactionManager tm;
    private final Map<Transaction, Connection> byTx = new ConcurrentHashMap<>();
    public static volatile int physicalOpens = 0;
    static final boolean DEBUG = Boolean.getBoolean("dsdebug");

    public EnlistingDataSource(XADataSource xads, DataSource plain, TransactionManager tm) {
        this.xads = xads; this.plain = plain; this.tm = tm;
    }

    @Override public Connection getConnection() throws SQLException {
        try {
            final Transaction tx = tm.getTransaction();
            if (DEBUG) System.out.println("[ds] getConnection tx=" + tx + " status=" + (tx == null ? -1 : tx.getStatus()));
            // cached connection first: Geronimo 2.0.1 calls beforeCompletion() on rollback (status MARKED_ROLLBACK)
            // and OpenJPA flushes there; that flush must go to the enlisted connection, not an auto-commit one.
            Connection c = tx == null ? null : byTx.get(tx);
            if (c != null) return c;
            if (tx == null || tx.getStatus() != Status.STATUS_ACTIVE) return plain.getConnection();
            final XAConnection xac = xads.getXAConnection();
            physicalOpens++;
            tx.enlistResource(xac.getXAResource());
            final Connection real = xac.getConnection();
            c = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class},
                (p, m, a) -> {
                    if (m.getName().equals("close")) return null;
                    if (m.getName().equals("isClosed")) return false;
                    try { return m.invoke(real, a); } catch (InvocationTargetException e) { throw e.getCause(); }
                });
            byTx.put(tx, c);
            tx.registerSynchronization(new Synchronization() {
                public void beforeCompletion() {}
                public void afterCompletion(int status) {
                    byTx.remove(tx);
                    try { real.close(); xac.close(); } catch (SQLException e) { e.printStackTrace(); }
                }
            });
            return c;
        } catch (SystemException | RollbackException e) {
            throw new SQLException(e);
        }
    }
    @Override public Connection getConnection(String u, String p) throws SQLException { return getConnection(); }
    @Override public PrintWriter getLogWriter() { return null; }
    @Override public void setLogWriter(PrintWriter out) {}
    @Override public void setLoginTimeout(int seconds) {}
    @Override public int getLoginTimeout() { return 0; }
    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { throw new SQLFeatureNotSupportedException(); }
    @Override public <T> T unwrap(Class<T> iface) throws SQLException { throw new SQLException("no"); }
    @Override public boolean isWrapperFor(Class<?> iface) { return false; }
}
