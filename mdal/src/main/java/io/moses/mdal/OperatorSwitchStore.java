package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.NAME_MAX;
import static io.moses.mdal.Validation.name;

import io.moses.model.TaskRef;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/** {@link OperatorSwitches} on the tables {@code operator_switch} and {@code operator_state_version} (V5). */
final class OperatorSwitchStore implements OperatorSwitches {
    private static final String MONITOR_OFF = "monitor-off";
    private static final String SERVICE_OUT = "service-out";
    private final Database db;

    OperatorSwitchStore(Database db) {
        this.db = db;
    }

    @Override
    public long version() {
        return db.tx("read operator state version", c -> one(query(c, "SELECT version FROM operator_state_version WHERE id = 1",
                rs -> rs.getLong(1))).orElse(0L));
    }

    @Override
    public State state() {
        return db.tx("read operator state", c -> {
            long version = one(query(c, "SELECT version FROM operator_state_version WHERE id = 1", rs -> rs.getLong(1))).orElse(0L);
            Set<String> monitors = new HashSet<>(), services = new HashSet<>();
            for (String[] row : query(c, "SELECT kind, name FROM operator_switch", rs -> new String[] {rs.getString(1), rs.getString(2)}))
                (row[0].equals(MONITOR_OFF) ? monitors : services).add(row[1]);
            return new State(version, monitors, services);
        });
    }

    @Override
    public boolean switchMonitor(String name, boolean on, String operator) {
        return set(MONITOR_OFF, name("monitor.name", name, NAME_MAX), !on, operator);
    }

    @Override
    public boolean holdOut(String name, boolean out, String operator) {
        return set(SERVICE_OUT, name("concreteService.name", name, NAME_MAX), out, operator);
    }

    /** Raises or lowers switch (kind, name); the version moves only when the switch did. */
    private boolean set(String kind, String name, boolean raised, String operator) {
        String by = name("operatorSwitch.changedBy", operator, 200);
        return db.tx("switch " + kind + " " + name, c -> {
            // the version row's lock orders every change: two replicas switching at once cannot both insert
            query(c, "SELECT version FROM operator_state_version WHERE id = 1 FOR UPDATE", rs -> rs.getLong(1));
            boolean is = exists(c, "SELECT 1 FROM operator_switch WHERE kind = ? AND name = ?", kind, name);
            if (is == raised) return false;
            if (raised && kind.equals(SERVICE_OUT)) requireAnotherIn(c, name);
            if (raised)
                update(c, "INSERT INTO operator_switch (kind, name, changed_by, updated_ms) VALUES (?, ?, ?, ?)", kind, name, by,
                        System.currentTimeMillis());
            else update(c, "DELETE FROM operator_switch WHERE kind = ? AND name = ?", kind, name);
            update(c, "UPDATE operator_state_version SET version = version + 1 WHERE id = 1");
            return true;
        });
    }

    /**
     * A plan needs a service of every task: the last service of its task that is in stays in
     * (taken out, its composite could not be planned and would keep the shares it had, on this
     * service). Checked under the version row's lock, so two operators cannot take out the last two.
     */
    private static void requireAnotherIn(Connection c, String service) throws SQLException {
        Optional<TaskRef> task = one(query(c, "SELECT composite, task FROM concrete_service WHERE name = ?",
                rs -> new TaskRef(rs.getString(1), rs.getString(2)), service));
        if (task.isEmpty()) return; // no such service: nothing a plan needs
        boolean another = exists(c, "SELECT 1 FROM concrete_service s WHERE s.composite = ? AND s.task = ? AND s.name <> ?"
                + " AND NOT EXISTS (SELECT 1 FROM operator_switch o WHERE o.kind = ? AND o.name = s.name)",
                task.get().composite(), task.get().name(), service, SERVICE_OUT);
        if (!another)
            throw KnowledgeBaseException.conflict("concreteService.name: '" + service + "' is the only concrete service of "
                    + task.get() + " that is in: the plans cannot do without it (put another one in first)");
    }
}
