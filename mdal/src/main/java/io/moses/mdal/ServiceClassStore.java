package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.ServiceClass;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Service classes (the SLA each class is promised and its price). */
final class ServiceClassStore {
    private final Database db;

    ServiceClassStore(Database db) {
        this.db = db;
    }

    private static void validate(ServiceClass k) {
        if (k == null) throw KnowledgeBaseException.invalid("serviceClass must not be null");
        name("serviceClass.name", k.name(), NAME_MAX);
    }

    private static final String CLASS_COLUMNS = "name, max_response_time, min_availability, max_cost, price";

    private static ServiceClass serviceClass(ResultSet rs) throws SQLException {
        return new ServiceClass(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5));
    }

    private static void insertClass(Connection c, ServiceClass k) throws SQLException {
        update(c, "INSERT INTO service_class (" + CLASS_COLUMNS + ") VALUES (?, ?, ?, ?, ?)",
                k.name(), k.maxResponseTime(), k.minAvailability(), k.maxCost(), k.price());
    }

    private static int updateClass(Connection c, ServiceClass k) throws SQLException {
        return update(c, "UPDATE service_class SET max_response_time = ?, min_availability = ?, max_cost = ?, price = ? WHERE name = ?",
                k.maxResponseTime(), k.minAvailability(), k.maxCost(), k.price(), k.name());
    }

    void addServiceClass(ServiceClass k) {
        validate(k);
        db.tx("add service class '" + k.name() + "'", c -> {
            UserStore.bumpSubscriptions(c);
            if (exists(c, "SELECT 1 FROM service_class WHERE name = ?", k.name()))
                throw KnowledgeBaseException.conflict("serviceClass.name: '" + k.name() + "' already exists");
            insertClass(c, k);
            return null;
        });
    }

    void putServiceClass(ServiceClass k) {
        validate(k);
        db.upsert("put service class '" + k.name() + "'", c -> {
            UserStore.bumpSubscriptions(c);
            if (updateClass(c, k) == 0) insertClass(c, k);
            return null;
        });
    }

    private static final LockedChange<ServiceClass> CHANGE = new LockedChange<>("serviceClass", "service class",
            "SELECT " + CLASS_COLUMNS + " FROM service_class WHERE name = ? FOR UPDATE", ServiceClassStore::serviceClass,
            ServiceClassStore::validate, ServiceClass::name);

    ServiceClass updateServiceClass(String name, UnaryOperator<ServiceClass> change) {
        String what = "update service class '" + name + "'";
        return db.tx(what, c -> {
            UserStore.bumpSubscriptions(c);
            ServiceClass next = CHANGE.apply(c, what, name, change);
            updateClass(c, next);
            return next;
        });
    }

    Optional<ServiceClass> serviceClass(String name) {
        return db.tx("read service class '" + name + "'", c -> one(query(c,
                "SELECT " + CLASS_COLUMNS + " FROM service_class WHERE name = ?", ServiceClassStore::serviceClass, name)));
    }

    List<ServiceClass> serviceClasses() {
        return db.tx("list service classes", c -> query(c,
                "SELECT " + CLASS_COLUMNS + " FROM service_class ORDER BY name", ServiceClassStore::serviceClass));
    }

    boolean removeServiceClass(String name) {
        return db.tx("remove service class '" + name + "'", c -> {
            UserStore.bumpSubscriptions(c);
            if (exists(c, "SELECT 1 FROM app_user WHERE class_name = ?", name))
                throw KnowledgeBaseException.conflict("serviceClass '" + name + "' still has users; move or remove them first");
            return update(c, "DELETE FROM service_class WHERE name = ?", name) > 0;
        });
    }

    java.util.Map<String, io.moses.model.OverRate> classOverRates() {
        return db.tx("list the classes' over-rate policies", c -> {
            java.util.Map<String, io.moses.model.OverRate> m = new java.util.TreeMap<>();
            for (String[] row : query(c, "SELECT name, over_rate FROM service_class WHERE over_rate IS NOT NULL ORDER BY name",
                    rs -> new String[] {rs.getString(1), rs.getString(2)}))
                m.put(row[0], io.moses.model.OverRate.parse("serviceClass.overRate", row[1]));
            return m;
        });
    }

    void putClassOverRate(String name, io.moses.model.OverRate overRate) {
        db.tx("set the over-rate policy of service class '" + name + "'", c -> {
            UserStore.bumpSubscriptions(c);
            int n = overRate == null ? update(c, "UPDATE service_class SET over_rate = NULL WHERE name = ?", name)
                    : update(c, "UPDATE service_class SET over_rate = ? WHERE name = ?", overRate.label(), name);
            if (n == 0)
                throw KnowledgeBaseException.notFound("serviceClass.name: no service class '" + name + "'");
            return null;
        });
    }

    static void requireClass(Connection c, String field, String className) throws SQLException {
        if (!exists(c, "SELECT 1 FROM service_class WHERE name = ?", className))
            throw KnowledgeBaseException.invalid(field + ": unknown service class '" + className + "'");
    }
}
