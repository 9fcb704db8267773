package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.Observation;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The latest monitored parameters: observed QoS per concrete service, visits per class and task. */
final class ObservationStore {
    private final Database db;

    ObservationStore(Database db) {
        this.db = db;
    }

    void putServiceQos(Observation.ServiceQos q) {
        validate(q);
        db.upsert("put QoS of '" + q.service() + "'", c -> {
            if (!put(c, q)) throw KnowledgeBaseException.invalid("serviceQos.service: unknown concrete service '" + q.service() + "'");
            return null;
        });
    }

    /** One monitor period's observations in one transaction; those of services no longer registered are left out. */
    void putServiceQos(java.util.Collection<Observation.ServiceQos> qs) {
        if (qs == null) throw KnowledgeBaseException.invalid("serviceQos must not be null");
        qs.forEach(ObservationStore::validate);
        if (qs.isEmpty()) return;
        db.upsert("put QoS of " + qs.size() + " services", c -> {
            for (Observation.ServiceQos q : qs) put(c, q);
            return null;
        });
    }

    private static void validate(Observation.ServiceQos q) {
        if (q == null) throw KnowledgeBaseException.invalid("serviceQos must not be null");
        name("serviceQos.service", q.service(), NAME_MAX);
        finiteNonNegative("serviceQos.responseTime", q.responseTime());
        if (!(q.availability() >= 0 && q.availability() <= 1))
            throw KnowledgeBaseException.invalid("serviceQos.availability must be in [0, 1], was " + q.availability());
        if (q.samples() < 0) throw KnowledgeBaseException.invalid("serviceQos.samples must be >= 0, was " + q.samples());
        if (q.at() == null) throw KnowledgeBaseException.invalid("serviceQos.at must not be null");
    }

    /**
     * Writes the observation; false if its service is not registered. The UPDATE goes first: a
     * row there means the service is (its observations go with it), so the steady state is one statement.
     */
    private static boolean put(java.sql.Connection c, Observation.ServiceQos q) throws SQLException {
        if (update(c, "UPDATE service_qos SET response_time = ?, availability = ?, samples = ?, at_ms = ? WHERE service = ?",
                q.responseTime(), q.availability(), q.samples(), q.at().toEpochMilli(), q.service()) > 0)
            return true;
        if (!exists(c, "SELECT 1 FROM concrete_service WHERE name = ?", q.service())) return false;
        update(c, "INSERT INTO service_qos (service, response_time, availability, samples, at_ms) VALUES (?, ?, ?, ?, ?)",
                q.service(), q.responseTime(), q.availability(), q.samples(), q.at().toEpochMilli());
        return true;
    }

    private static Observation.ServiceQos qos(ResultSet rs) throws SQLException {
        return new Observation.ServiceQos(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getLong(4), Instant.ofEpochMilli(rs.getLong(5)));
    }

    Optional<Observation.ServiceQos> serviceQos(String service) {
        return db.tx("read QoS of '" + service + "'", c -> one(query(c,
                "SELECT service, response_time, availability, samples, at_ms FROM service_qos WHERE service = ?", ObservationStore::qos, service)));
    }

    List<Observation.ServiceQos> serviceQos() {
        return db.tx("list observed QoS", c -> query(c,
                "SELECT service, response_time, availability, samples, at_ms FROM service_qos ORDER BY service", ObservationStore::qos));
    }

    void putVisits(Observation.TaskVisits v) {
        if (v == null) throw KnowledgeBaseException.invalid("visits must not be null");
        name("visits.serviceClass", v.serviceClass(), NAME_MAX);
        task("visits.task", v.task());
        finiteNonNegative("visits.visits", v.visits());
        if (v.samples() < 0) throw KnowledgeBaseException.invalid("visits.samples must be >= 0, was " + v.samples());
        if (v.at() == null) throw KnowledgeBaseException.invalid("visits.at must not be null");
        db.upsert("put visits of " + v.task() + " by '" + v.serviceClass() + "'", c -> {
            ServiceClassStore.requireClass(c, "visits.serviceClass", v.serviceClass());
            if (!exists(c, "SELECT 1 FROM task WHERE composite = ? AND name = ?", v.task().composite(), v.task().name()))
                throw KnowledgeBaseException.invalid("visits.task: unknown task " + v.task());
            if (update(c, "UPDATE visits SET visits = ?, samples = ?, at_ms = ? WHERE class_name = ? AND composite = ? AND task = ?",
                    v.visits(), v.samples(), v.at().toEpochMilli(), v.serviceClass(), v.task().composite(), v.task().name()) == 0)
                update(c, "INSERT INTO visits (class_name, composite, task, visits, samples, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                        v.serviceClass(), v.task().composite(), v.task().name(), v.visits(), v.samples(), v.at().toEpochMilli());
            return null;
        });
    }

    List<Observation.TaskVisits> visits() {
        return db.tx("list visits", c -> query(c,
                "SELECT class_name, composite, task, visits, samples, at_ms FROM visits ORDER BY class_name, composite, task",
                rs -> new Observation.TaskVisits(rs.getString(1), new TaskRef(rs.getString(2), rs.getString(3)), rs.getDouble(4),
                        rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6)))));
    }
}
