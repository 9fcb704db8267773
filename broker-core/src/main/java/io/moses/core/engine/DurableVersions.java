package io.moses.core.engine;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.iapi.Scheduler;

/**
 * The files of every durable process version, in the knowledge base ({@code process_version}):
 * kept at each deploy, read back when unfinished instances wait for a version the engine does
 * not have (a start after a redeploy, a takeover of a replica that ran another version), and
 * deleted once no instance of a replaced version is left. Each call is one engine transaction.
 */
final class DurableVersions {
    /** A kept version: the unit it belongs to and the unit's files as a bundle. */
    record Kept(String unit, byte[] bundle) {}

    private final DurableStore store;
    private final Scheduler scheduler;

    DurableVersions(DurableStore store, Scheduler scheduler) {
        this.store = store;
        this.scheduler = scheduler;
    }

    /**
     * Keeps the files of unit {@code dir} for each of {@code pids}: stored once per version, and
     * marked deployed now (a version deployed again is not deleted as replaced).
     */
    void keep(String unit, Path dir, Collection<QName> pids) {
        byte[][] bundle = new byte[1][]; // zipped only when a version is new
        sql(c -> {
            long now = System.currentTimeMillis();
            for (QName pid : pids) {
                if (update(c, "UPDATE process_version SET stored_ms = ? WHERE process_id = ?", now, pid.toString()) > 0) continue;
                if (bundle[0] == null) bundle[0] = Bundle.zip(dir);
                update(c, "INSERT INTO process_version (process_id, unit, bundle, stored_ms) VALUES (?, ?, ?, ?)",
                        pid.toString(), unit, bundle[0], now);
            }
            return null;
        });
    }

    /** Every process version that unfinished instances (not completed, faulted or terminated) run on, with their number. */
    Map<QName, Integer> waiting() {
        return sql(c -> {
            Map<QName, Integer> out = new HashMap<>();
            try (PreparedStatement s = c.prepareStatement("SELECT p.PROCESS_ID, COUNT(*) FROM ODE_PROCESS_INSTANCE i"
                    + " JOIN ODE_PROCESS p ON p.ID = i.PROCESS_ID WHERE i.INSTANCE_STATE NOT IN (" + Instances.FINISHED + ")"
                    + " GROUP BY p.PROCESS_ID"); ResultSet r = s.executeQuery()) {
                while (r.next()) out.put(QName.valueOf(r.getString(1)), r.getInt(2));
            }
            return out;
        });
    }

    /**
     * The unfinished instances, oldest first, of every version of unit {@code unit}: those whose
     * files are kept under its name, and {@code alsoPids} (versions registered now).
     */
    List<Long> unfinished(String unit, Collection<QName> alsoPids) {
        return sql(c -> {
            StringBuilder q = new StringBuilder("SELECT i.ID FROM ODE_PROCESS_INSTANCE i JOIN ODE_PROCESS p ON p.ID = i.PROCESS_ID"
                    + " WHERE i.INSTANCE_STATE NOT IN (" + Instances.FINISHED + ")"
                    + " AND (p.PROCESS_ID IN (SELECT process_id FROM process_version WHERE unit = ?)");
            for (int i = 0; i < alsoPids.size(); i++) q.append(i == 0 ? " OR p.PROCESS_ID IN (?" : ", ?");
            q.append(alsoPids.isEmpty() ? ")" : "))").append(" ORDER BY i.ID");
            try (PreparedStatement s = c.prepareStatement(q.toString())) {
                int n = 1;
                s.setString(n++, unit);
                for (QName pid : alsoPids) s.setString(n++, pid.toString());
                List<Long> ids = new ArrayList<>();
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) ids.add(r.getLong(1));
                }
                return ids;
            }
        });
    }

    /** The kept files of version {@code pid}, if any. */
    Optional<Kept> kept(QName pid) {
        return sql(c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT unit, bundle FROM process_version WHERE process_id = ?")) {
                s.setString(1, pid.toString());
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? Optional.of(new Kept(r.getString(1), r.getBytes(2))) : Optional.<Kept>empty();
                }
            }
        });
    }

    /**
     * Deletes the files of each replaced version that no instance runs on any more (finished ones
     * included: they go with the retention purge) and that was last deployed before
     * {@code before}; the newest version of each unit stays.
     *
     * @return the versions deleted
     */
    List<QName> forgetReplaced(Instant before) {
        return sql(c -> {
            record Row(String pid, String unit, long stored) {}
            List<Row> rows = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT process_id, unit, stored_ms FROM process_version"); ResultSet r = s.executeQuery()) {
                while (r.next()) rows.add(new Row(r.getString(1), r.getString(2), r.getLong(3)));
            }
            Map<String, Long> newest = new HashMap<>();
            for (Row row : rows) newest.merge(row.unit(), row.stored(), Math::max);
            List<QName> deleted = new ArrayList<>();
            for (Row row : rows) {
                if (row.stored() >= before.toEpochMilli() || row.stored() == newest.get(row.unit())) continue;
                try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE i JOIN ODE_PROCESS p"
                        + " ON p.ID = i.PROCESS_ID WHERE p.PROCESS_ID = ?")) {
                    s.setString(1, row.pid());
                    try (ResultSet r = s.executeQuery()) {
                        if (r.next() && r.getLong(1) > 0) continue;
                    }
                }
                update(c, "DELETE FROM process_version WHERE process_id = ?", row.pid());
                deleted.add(QName.valueOf(row.pid()));
            }
            return deleted;
        });
    }

    private interface Sql<T> {
        T run(Connection c) throws SQLException;
    }

    /** {@code work} in one engine transaction, on its connection. */
    private <T> T sql(Sql<T> work) {
        try {
            return scheduler.execTransaction(() -> {
                try (Connection c = store.enlisted().getConnection()) {
                    return work.run(c);
                }
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    private static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) s.setObject(i + 1, args[i]);
            return s.executeUpdate();
        }
    }
}
