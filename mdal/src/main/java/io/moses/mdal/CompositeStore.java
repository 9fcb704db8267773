package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.CompositeService;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Composite services (their behavioral model as JSON) and the tasks they declare. */
final class CompositeStore {
    private final Database db;

    CompositeStore(Database db) {
        this.db = db;
    }

    void putCompositeService(CompositeService cs) {
        if (cs == null) throw KnowledgeBaseException.invalid("compositeService must not be null");
        name("compositeService.name", cs.name(), NAME_MAX);
        if (cs.namespace() != null && cs.namespace().length() > 500)
            throw KnowledgeBaseException.invalid("compositeService.namespace must be at most 500 characters");
        Set<TaskRef> tasks = Visits.tasks(cs);
        int i = 0;
        for (TaskRef t : tasks) {
            task("compositeService.tasks[" + i + "]", t);
            if (!t.composite().equals(cs.name()))
                throw KnowledgeBaseException.invalid("compositeService.tasks[" + i + "].composite must be '" + cs.name()
                        + "', was '" + t.composite() + "'");
            i++;
        }
        String json = Json.compositeToJson(cs);
        db.upsert("put composite service '" + cs.name() + "'", c -> {
            UserStore.bumpSubscriptions(c);
            long now = System.currentTimeMillis();
            if (update(c, "UPDATE composite_service SET namespace = ?, structure = ?, updated_ms = ? WHERE name = ?",
                    cs.namespace(), json, now, cs.name()) == 0)
                update(c, "INSERT INTO composite_service (name, namespace, structure, updated_ms) VALUES (?, ?, ?, ?)",
                        cs.name(), cs.namespace(), json, now);
            for (TaskRef t : tasks) ensureTask(c, t);
            return null;
        });
    }

    Optional<CompositeService> compositeService(String name) {
        return db.tx("read composite service '" + name + "'", c -> one(query(c,
                "SELECT structure FROM composite_service WHERE name = ?", rs -> Json.compositeFromJson(rs.getString(1)), name)));
    }

    List<CompositeService> compositeServices() {
        return db.tx("list composite services", c -> query(c,
                "SELECT structure FROM composite_service ORDER BY name", rs -> Json.compositeFromJson(rs.getString(1))));
    }

    boolean removeCompositeService(String name) {
        return db.tx("remove composite service '" + name + "'",
                c -> {
                    UserStore.bumpSubscriptions(c);
                    return update(c, "DELETE FROM composite_service WHERE name = ?", name) > 0;
                });
    }

    List<TaskRef> tasks() {
        return db.tx("list tasks", c -> query(c, "SELECT composite, name FROM task ORDER BY composite, name",
                rs -> new TaskRef(rs.getString(1), rs.getString(2))));
    }

    List<TaskRef> tasks(String composite) {
        return db.tx("list tasks of '" + composite + "'", c -> query(c,
                "SELECT composite, name FROM task WHERE composite = ? ORDER BY name",
                rs -> new TaskRef(rs.getString(1), rs.getString(2)), composite));
    }

    /** The tasks declared idempotent (a second call is safe). */
    Set<TaskRef> idempotentTasks() {
        return flagged("idempotent");
    }

    /** Says whether a second call of {@code t} is safe; registers the task if new. */
    void putTaskIdempotent(TaskRef t, boolean idempotent) {
        putFlag(t, "idempotent", idempotent);
    }

    /** The tasks declared stateful (their partner link's calls in one instance stay with one provider). */
    Set<TaskRef> statefulTasks() {
        return flagged("stateful");
    }

    /** Says whether {@code t}'s provider keeps conversation state; registers the task if new. */
    void putTaskStateful(TaskRef t, boolean stateful) {
        putFlag(t, "stateful", stateful);
    }

    /** The asynchronous tasks, each with how it answers. */
    Map<TaskRef, io.moses.model.Callback> asynchronousTasks() {
        return db.tx("list asynchronous tasks", c -> Map.ofEntries(query(c,
                "SELECT composite, name, callback_operation, callback_timeout FROM task WHERE callback_operation IS NOT NULL",
                rs -> Map.entry(new TaskRef(rs.getString(1), rs.getString(2)), new io.moses.model.Callback(rs.getString(3),
                        java.time.Duration.ofNanos(Math.round(rs.getDouble(4) * 1e9))))).toArray(Map.Entry[]::new)));
    }

    /** Says how {@code t} answers: by {@code callback}, or in its reply (null); registers the task if new. */
    void putTaskCallback(TaskRef t, io.moses.model.Callback callback) {
        task("task", t);
        db.upsert("set the callback of task '" + t + "'", c -> {
            ensureTask(c, t);
            update(c, "UPDATE task SET callback_operation = ?, callback_timeout = ? WHERE composite = ? AND name = ?",
                    callback == null ? null : callback.operation(), callback == null ? null : callback.timeout().toNanos() / 1e9,
                    t.composite(), t.name());
            return null;
        });
    }

    /** @param flag a boolean column of {@code task} (a constant of this class, never input) */
    private Set<TaskRef> flagged(String flag) {
        return db.tx("list " + flag + " tasks", c -> Set.copyOf(query(c,
                "SELECT composite, name FROM task WHERE " + flag + " = TRUE", rs -> new TaskRef(rs.getString(1), rs.getString(2)))));
    }

    private void putFlag(TaskRef t, String flag, boolean value) {
        task("task", t);
        db.upsert("set " + flag + " of task '" + t + "'", c -> {
            ensureTask(c, t);
            update(c, "UPDATE task SET " + flag + " = ? WHERE composite = ? AND name = ?", value, t.composite(), t.name());
            return null;
        });
    }

    /** Registers a task if new; a concurrent registration of the same task is not an error. */
    static void ensureTask(Connection c, TaskRef t) throws SQLException {
        if (exists(c, "SELECT 1 FROM task WHERE composite = ? AND name = ?", t.composite(), t.name())) return;
        try {
            update(c, "INSERT INTO task (composite, name) VALUES (?, ?)", t.composite(), t.name());
        } catch (SQLException e) {
            // H2 and InnoDB roll back only the failed statement, so the transaction goes on
            if (e.getErrorCode() != 23505 && e.getErrorCode() != 1062) throw e;
        }
    }
}
