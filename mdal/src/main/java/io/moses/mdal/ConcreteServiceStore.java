package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Concrete services with their provider SLA and payload mapping, each implementing one task. */
final class ConcreteServiceStore {
    private final Database db;

    ConcreteServiceStore(Database db) {
        this.db = db;
    }

    private static void validate(ConcreteService s) {
        if (s == null) throw KnowledgeBaseException.invalid("concreteService must not be null");
        name("concreteService.name", s.name(), NAME_MAX);
        task("concreteService.task", s.task());
        URI e = s.endpoint();
        if (!e.isAbsolute() || e.getHost() == null)
            throw KnowledgeBaseException.invalid("concreteService.endpoint must be an absolute URL with a host, was '" + e + "'");
        if (e.toString().length() > ENDPOINT_MAX)
            throw KnowledgeBaseException.invalid("concreteService.endpoint must be at most " + ENDPOINT_MAX + " characters");
        // ProviderSla checks its own domain at construction; this guards NaN-free storage only.
    }

    private static final String SERVICE_COLUMNS =
            "name, composite, task, endpoint, response_time, availability, cost, max_rate, mapping";

    private static ConcreteService service(ResultSet rs) throws SQLException {
        return new ConcreteService(rs.getString(1), new TaskRef(rs.getString(2), rs.getString(3)), URI.create(rs.getString(4)),
                new ProviderSla(rs.getDouble(5), rs.getDouble(6), rs.getDouble(7), rs.getDouble(8)),
                Json.mappingFromJson(rs.getString(9)));
    }

    private static void insertService(Connection c, ConcreteService s) throws SQLException {
        update(c, "INSERT INTO concrete_service (" + SERVICE_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                s.name(), s.task().composite(), s.task().name(), s.endpoint().toString(), s.sla().responseTime(),
                s.sla().availability(), s.sla().cost(), s.sla().maxRate(), Json.mappingToJson(s.mapping()));
    }

    private static int updateService(Connection c, ConcreteService s) throws SQLException {
        return update(c, "UPDATE concrete_service SET composite = ?, task = ?, endpoint = ?, response_time = ?, availability = ?, "
                        + "cost = ?, max_rate = ?, mapping = ? WHERE name = ?",
                s.task().composite(), s.task().name(), s.endpoint().toString(), s.sla().responseTime(), s.sla().availability(),
                s.sla().cost(), s.sla().maxRate(), Json.mappingToJson(s.mapping()), s.name());
    }

    void addConcreteService(ConcreteService s) {
        validate(s);
        db.tx("add concrete service '" + s.name() + "'", c -> {
            UserStore.bumpSubscriptions(c);
            if (exists(c, "SELECT 1 FROM concrete_service WHERE name = ?", s.name()))
                throw KnowledgeBaseException.conflict("concreteService.name: '" + s.name() + "' already exists");
            CompositeStore.ensureTask(c, s.task());
            insertService(c, s);
            return null;
        });
    }

    void putConcreteService(ConcreteService s) {
        validate(s);
        db.upsert("put concrete service '" + s.name() + "'", c -> {
            UserStore.bumpSubscriptions(c);
            CompositeStore.ensureTask(c, s.task());
            if (updateService(c, s) == 0) insertService(c, s);
            return null;
        });
    }

    private static final LockedChange<ConcreteService> CHANGE = new LockedChange<>("concreteService", "concrete service",
            "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE name = ? FOR UPDATE", ConcreteServiceStore::service,
            ConcreteServiceStore::validate, ConcreteService::name);

    ConcreteService updateConcreteService(String name, UnaryOperator<ConcreteService> change) {
        String what = "update concrete service '" + name + "'";
        return db.tx(what, c -> {
            UserStore.bumpSubscriptions(c);
            ConcreteService next = CHANGE.apply(c, what, name, change);
            CompositeStore.ensureTask(c, next.task());
            updateService(c, next);
            return next;
        });
    }

    Optional<ConcreteService> concreteService(String name) {
        return db.tx("read concrete service '" + name + "'", c -> one(query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE name = ?", ConcreteServiceStore::service, name)));
    }

    List<ConcreteService> concreteServices() {
        return db.tx("list concrete services", c -> query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service ORDER BY name", ConcreteServiceStore::service));
    }

    List<ConcreteService> concreteServices(TaskRef t) {
        return db.tx("list concrete services of " + t, c -> query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE composite = ? AND task = ? ORDER BY name",
                ConcreteServiceStore::service, t.composite(), t.name()));
    }

    boolean removeConcreteService(String name) {
        return db.tx("remove concrete service '" + name + "'",
                c -> {
                    UserStore.bumpSubscriptions(c);
                    return update(c, "DELETE FROM concrete_service WHERE name = ?", name) > 0;
                });
    }
}
