package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The process_unit and process_unit_replica tables (V4). */
final class ProcessUnitStore implements ProcessUnits {
    private static final int ERROR_MAX = 2000;
    private static final String COLUMNS = "name, version, deleted, bytes, changed_by, updated_ms";
    private final Database db;

    ProcessUnitStore(Database db) {
        this.db = db;
    }

    @Override
    public long version() {
        return db.tx("read process units version", c -> one(query(c, "SELECT version FROM process_units_version WHERE id = 1",
                rs -> rs.getLong(1))).orElse(0L));
    }

    @Override
    public List<ProcessUnit> units() {
        return db.tx("list process units", c -> query(c, "SELECT " + COLUMNS + " FROM process_unit ORDER BY name", ProcessUnitStore::unit));
    }

    @Override
    public Optional<ProcessUnit> unit(String name) {
        return db.tx("read process unit '" + name + "'", c -> one(query(c,
                "SELECT " + COLUMNS + " FROM process_unit WHERE name = ?", ProcessUnitStore::unit, name)));
    }

    @Override
    public Optional<byte[]> bundle(String name, long version) {
        return db.tx("read bundle of process unit '" + name + "'", c -> one(query(c,
                "SELECT bundle FROM process_unit WHERE name = ? AND version = ? AND deleted = FALSE",
                rs -> rs.getBytes(1), name, version)));
    }

    @Override
    public ProcessUnit store(String name, byte[] bundle, String changedBy) {
        name("processUnit.name", name, NAME_MAX);
        name("processUnit.changedBy", changedBy, 200);
        boolean deleted = bundle == null;
        long bytes = deleted ? 0 : bundle.length;
        // the next number of the one sequence, under its row lock: changes of units are numbered
        // in the order they commit, so a replica that has seen version N has seen every change up to N
        return db.upsert("store process unit '" + name + "'", c -> {
            update(c, "UPDATE process_units_version SET version = version + 1 WHERE id = 1");
            long version = one(query(c, "SELECT version FROM process_units_version WHERE id = 1", rs -> rs.getLong(1))).orElseThrow();
            long now = System.currentTimeMillis();
            if (update(c, "UPDATE process_unit SET version = ?, deleted = ?, bundle = ?, bytes = ?, changed_by = ?, updated_ms = ? WHERE name = ?",
                    version, deleted, bundle, bytes, changedBy, now, name) == 0)
                update(c, "INSERT INTO process_unit (name, version, deleted, bundle, bytes, changed_by, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        name, version, deleted, bundle, bytes, changedBy, now);
            return new ProcessUnit(name, version, deleted, bytes, changedBy, Instant.ofEpochMilli(now));
        });
    }

    @Override
    public void recordApplied(String replica, String unit, long version, String error) {
        name("processUnitState.replica", replica, 200);
        name("processUnitState.unit", unit, NAME_MAX);
        String e = error == null || error.length() <= ERROR_MAX ? error : error.substring(0, ERROR_MAX - 3) + "...";
        db.upsert("record state of process unit '" + unit + "' on '" + replica + "'", c -> {
            long now = System.currentTimeMillis();
            if (update(c, "UPDATE process_unit_replica SET version = ?, error = ?, at_ms = ? WHERE replica = ? AND unit = ?",
                    version, e, now, replica, unit) == 0)
                update(c, "INSERT INTO process_unit_replica (replica, unit, version, error, at_ms) VALUES (?, ?, ?, ?, ?)",
                        replica, unit, version, e, now);
            return null;
        });
    }

    @Override
    public List<ProcessUnitState> states() {
        return db.tx("list process unit states", c -> query(c,
                "SELECT replica, unit, version, error, at_ms FROM process_unit_replica ORDER BY unit, replica",
                rs -> new ProcessUnitState(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), Instant.ofEpochMilli(rs.getLong(5)))));
    }

    @Override
    public void forgetReplica(String replica) {
        db.tx("forget process unit states of '" + replica + "'", c -> update(c, "DELETE FROM process_unit_replica WHERE replica = ?", replica));
    }

    private static ProcessUnit unit(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new ProcessUnit(rs.getString(1), rs.getLong(2), rs.getBoolean(3), rs.getLong(4), rs.getString(5), Instant.ofEpochMilli(rs.getLong(6)));
    }
}
