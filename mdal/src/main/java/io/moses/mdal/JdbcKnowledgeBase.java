package io.moses.mdal;

import com.zaxxer.hikari.HikariDataSource;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import io.moses.model.User;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The knowledge base over JDBC: the same SQL on H2 and MySQL/MariaDB (see the V1 migration).
 * Every public method is one transaction on a pooled connection; deadlocks and lock timeouts
 * are retried, connection failures are not (they surface at once as UNAVAILABLE).
 */
final class JdbcKnowledgeBase implements KnowledgeBase {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcKnowledgeBase.class);
    private static final int NAME_MAX = 100;
    private static final int TASK_MAX = 200;
    private static final int ENDPOINT_MAX = 2000;
    private static final int TEXT_MAX = 2000;
    private static final int RETRIES = 8;
    private static final double FRACTION_TOLERANCE = 1e-6;

    private final HikariDataSource dataSource;
    private final String description;
    private final boolean h2InMemory;
    private volatile boolean closed;

    JdbcKnowledgeBase(HikariDataSource dataSource, String description, boolean h2InMemory) {
        this.dataSource = dataSource;
        this.description = description;
        this.h2InMemory = h2InMemory;
    }

    // ------------------------------------------------------------------ transactions

    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    <T> T tx(String what, Work<T> work) {
        return tx(what, false, work);
    }

    /**
     * An insert-or-replace (UPDATE, then INSERT if no row matched): two writers may both find no
     * row and both insert; the loser's duplicate-key error is retried, and then it updates.
     */
    <T> T upsert(String what, Work<T> work) {
        return tx(what, true, work);
    }

    private <T> T tx(String what, boolean retryDuplicates, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            if (closed) throw new KnowledgeBaseException(KnowledgeBaseException.Kind.UNAVAILABLE, what + ": knowledge base is closed");
            Connection c;
            try {
                c = dataSource.getConnection(); // waits at most connectionTimeout (2 s) when the database is down
            } catch (SQLException e) {
                throw unavailableOrOther(what, e);
            }
            boolean committing = false;
            try (c) {
                try {
                    T result = work.run(c);
                    committing = true;
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException | Error e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if (attempt < RETRIES && (SqlErrors.retryable(e) || retryDuplicates && SqlErrors.duplicateKey(e))) {
                    sleepQuietly(ThreadLocalRandom.current().nextInt(1, 5 * attempt + 2));
                    continue;
                }
                // A pooled connection that died with the server (for example after a database
                // restart) fails before anything was committed: one retry on a fresh connection.
                if (attempt == 1 && !committing && SqlErrors.connectionProblem(e)) {
                    LOG.info("{}: connection lost ({}); retrying once on a new connection", what, e.getClass().getSimpleName());
                    continue;
                }
                throw unavailableOrOther(what, e);
            }
        }
    }

    private KnowledgeBaseException unavailableOrOther(String what, SQLException e) {
        KnowledgeBaseException k = SqlErrors.translate(what, description, e);
        if (k.kind() == KnowledgeBaseException.Kind.UNAVAILABLE) LOG.warn("{}", k.getMessage());
        return k;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool will evict it
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ validation

    private static String name(String field, String v, int max) {
        if (v == null || v.isBlank()) throw KnowledgeBaseException.invalid(field + " must not be empty");
        if (v.length() > max) throw KnowledgeBaseException.invalid(field + " must be at most " + max + " characters, was " + v.length());
        return v;
    }

    private static double finiteNonNegative(String field, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) throw KnowledgeBaseException.invalid(field + " must be a number >= 0, was " + v);
        return v;
    }

    private static double finite(String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) throw KnowledgeBaseException.invalid(field + " must be a finite number, was " + v);
        return v;
    }

    private static void task(String field, TaskRef t) {
        if (t == null) throw KnowledgeBaseException.invalid(field + " must not be empty");
        name(field + ".composite", t.composite(), NAME_MAX);
        name(field + ".name", t.name(), TASK_MAX);
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

    private static void validate(ServiceClass k) {
        if (k == null) throw KnowledgeBaseException.invalid("serviceClass must not be null");
        name("serviceClass.name", k.name(), NAME_MAX);
    }

    private static void validate(User u) {
        if (u == null) throw KnowledgeBaseException.invalid("user must not be null");
        name("user.name", u.name(), NAME_MAX);
        name("user.serviceClass", u.serviceClass(), NAME_MAX);
        if (!PasswordHasher.isHash(u.passwordHash()))
            throw KnowledgeBaseException.invalid("user.passwordHash of '" + u.name()
                    + "' must be a PasswordHasher hash (pbkdf2-sha256$...), never a plain password");
        if (u.passwordHash().length() > 255) throw KnowledgeBaseException.invalid("user.passwordHash is too long");
    }

    /** Runs a caller's change; a record constructor's IllegalArgumentException becomes INVALID. */
    private static <T> T apply(String what, UnaryOperator<T> change, T current) {
        T next;
        try {
            next = change.apply(current);
        } catch (IllegalArgumentException e) {
            throw KnowledgeBaseException.invalid(what + ": " + e.getMessage());
        }
        if (next == null) throw KnowledgeBaseException.invalid(what + ": the change returned null");
        return next;
    }

    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }

    // ------------------------------------------------------------------ small JDBC helpers

    private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Double d) ps.setDouble(i + 1, d);
            else if (a instanceof Long l) ps.setLong(i + 1, l);
            else if (a instanceof Integer n) ps.setInt(i + 1, n);
            else if (a instanceof Boolean b) ps.setBoolean(i + 1, b);
            else ps.setObject(i + 1, a);
        }
        return ps;
    }

    private static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            return ps.executeUpdate();
        }
    }

    private static boolean exists(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    @FunctionalInterface
    private interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    private static <T> List<T> query(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        return query(c, 0, sql, row, args);
    }

    private static <T> List<T> query(Connection c, int maxRows, String sql, Row<T> row, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            if (maxRows > 0) ps.setMaxRows(maxRows);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) out.add(row.map(rs));
                return out;
            }
        }
    }

    private static <T> Optional<T> one(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /** Registers a task if new; a concurrent registration of the same task is not an error. */
    private static void ensureTask(Connection c, TaskRef t) throws SQLException {
        if (exists(c, "SELECT 1 FROM task WHERE composite = ? AND name = ?", t.composite(), t.name())) return;
        try {
            update(c, "INSERT INTO task (composite, name) VALUES (?, ?)", t.composite(), t.name());
        } catch (SQLException e) {
            // H2 and InnoDB roll back only the failed statement, so the transaction goes on
            if (e.getErrorCode() != 23505 && e.getErrorCode() != 1062) throw e;
        }
    }

    // ------------------------------------------------------------------ composite services

    @Override
    public void putCompositeService(CompositeService cs) {
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
        upsert("put composite service '" + cs.name() + "'", c -> {
            long now = System.currentTimeMillis();
            if (update(c, "UPDATE composite_service SET namespace = ?, structure = ?, updated_ms = ? WHERE name = ?",
                    cs.namespace(), json, now, cs.name()) == 0)
                update(c, "INSERT INTO composite_service (name, namespace, structure, updated_ms) VALUES (?, ?, ?, ?)",
                        cs.name(), cs.namespace(), json, now);
            for (TaskRef t : tasks) ensureTask(c, t);
            return null;
        });
    }

    @Override
    public Optional<CompositeService> compositeService(String name) {
        return tx("read composite service '" + name + "'", c -> one(query(c,
                "SELECT structure FROM composite_service WHERE name = ?", rs -> Json.compositeFromJson(rs.getString(1)), name)));
    }

    @Override
    public List<CompositeService> compositeServices() {
        return tx("list composite services", c -> query(c,
                "SELECT structure FROM composite_service ORDER BY name", rs -> Json.compositeFromJson(rs.getString(1))));
    }

    @Override
    public boolean removeCompositeService(String name) {
        return tx("remove composite service '" + name + "'",
                c -> update(c, "DELETE FROM composite_service WHERE name = ?", name) > 0);
    }

    @Override
    public List<TaskRef> tasks() {
        return tx("list tasks", c -> query(c, "SELECT composite, name FROM task ORDER BY composite, name",
                rs -> new TaskRef(rs.getString(1), rs.getString(2))));
    }

    @Override
    public List<TaskRef> tasks(String composite) {
        return tx("list tasks of '" + composite + "'", c -> query(c,
                "SELECT composite, name FROM task WHERE composite = ? ORDER BY name",
                rs -> new TaskRef(rs.getString(1), rs.getString(2)), composite));
    }

    // ------------------------------------------------------------------ concrete services

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

    @Override
    public void addConcreteService(ConcreteService s) {
        validate(s);
        tx("add concrete service '" + s.name() + "'", c -> {
            if (exists(c, "SELECT 1 FROM concrete_service WHERE name = ?", s.name()))
                throw KnowledgeBaseException.conflict("concreteService.name: '" + s.name() + "' already exists");
            ensureTask(c, s.task());
            insertService(c, s);
            return null;
        });
    }

    @Override
    public void putConcreteService(ConcreteService s) {
        validate(s);
        upsert("put concrete service '" + s.name() + "'", c -> {
            ensureTask(c, s.task());
            if (updateService(c, s) == 0) insertService(c, s);
            return null;
        });
    }

    @Override
    public ConcreteService updateConcreteService(String name, UnaryOperator<ConcreteService> change) {
        String what = "update concrete service '" + name + "'";
        return tx(what, c -> {
            ConcreteService current = one(query(c, "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE name = ? FOR UPDATE",
                    JdbcKnowledgeBase::service, name))
                    .orElseThrow(() -> KnowledgeBaseException.notFound("concreteService.name: no concrete service '" + name + "'"));
            ConcreteService next = apply(what, change, current);
            validate(next);
            if (!next.name().equals(name)) throw KnowledgeBaseException.invalid(what + ": concreteService.name cannot change");
            ensureTask(c, next.task());
            updateService(c, next);
            return next;
        });
    }

    @Override
    public Optional<ConcreteService> concreteService(String name) {
        return tx("read concrete service '" + name + "'", c -> one(query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE name = ?", JdbcKnowledgeBase::service, name)));
    }

    @Override
    public List<ConcreteService> concreteServices() {
        return tx("list concrete services", c -> query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service ORDER BY name", JdbcKnowledgeBase::service));
    }

    @Override
    public List<ConcreteService> concreteServices(TaskRef t) {
        return tx("list concrete services of " + t, c -> query(c,
                "SELECT " + SERVICE_COLUMNS + " FROM concrete_service WHERE composite = ? AND task = ? ORDER BY name",
                JdbcKnowledgeBase::service, t.composite(), t.name()));
    }

    @Override
    public boolean removeConcreteService(String name) {
        return tx("remove concrete service '" + name + "'",
                c -> update(c, "DELETE FROM concrete_service WHERE name = ?", name) > 0);
    }

    // ------------------------------------------------------------------ service classes

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

    @Override
    public void addServiceClass(ServiceClass k) {
        validate(k);
        tx("add service class '" + k.name() + "'", c -> {
            if (exists(c, "SELECT 1 FROM service_class WHERE name = ?", k.name()))
                throw KnowledgeBaseException.conflict("serviceClass.name: '" + k.name() + "' already exists");
            insertClass(c, k);
            return null;
        });
    }

    @Override
    public void putServiceClass(ServiceClass k) {
        validate(k);
        upsert("put service class '" + k.name() + "'", c -> {
            if (updateClass(c, k) == 0) insertClass(c, k);
            return null;
        });
    }

    @Override
    public ServiceClass updateServiceClass(String name, UnaryOperator<ServiceClass> change) {
        String what = "update service class '" + name + "'";
        return tx(what, c -> {
            ServiceClass current = one(query(c, "SELECT " + CLASS_COLUMNS + " FROM service_class WHERE name = ? FOR UPDATE",
                    JdbcKnowledgeBase::serviceClass, name))
                    .orElseThrow(() -> KnowledgeBaseException.notFound("serviceClass.name: no service class '" + name + "'"));
            ServiceClass next = apply(what, change, current);
            validate(next);
            if (!next.name().equals(name)) throw KnowledgeBaseException.invalid(what + ": serviceClass.name cannot change");
            updateClass(c, next);
            return next;
        });
    }

    @Override
    public Optional<ServiceClass> serviceClass(String name) {
        return tx("read service class '" + name + "'", c -> one(query(c,
                "SELECT " + CLASS_COLUMNS + " FROM service_class WHERE name = ?", JdbcKnowledgeBase::serviceClass, name)));
    }

    @Override
    public List<ServiceClass> serviceClasses() {
        return tx("list service classes", c -> query(c,
                "SELECT " + CLASS_COLUMNS + " FROM service_class ORDER BY name", JdbcKnowledgeBase::serviceClass));
    }

    @Override
    public boolean removeServiceClass(String name) {
        return tx("remove service class '" + name + "'", c -> {
            if (exists(c, "SELECT 1 FROM app_user WHERE class_name = ?", name))
                throw KnowledgeBaseException.conflict("serviceClass '" + name + "' still has users; move or remove them first");
            return update(c, "DELETE FROM service_class WHERE name = ?", name) > 0;
        });
    }

    // ------------------------------------------------------------------ users

    private static final String USER_COLUMNS = "name, class_name, rate, password_hash, role";

    private static User user(ResultSet rs) throws SQLException {
        return new User(rs.getString(1), rs.getString(2), rs.getDouble(3), rs.getString(4), Role.parse("app_user.role", rs.getString(5)));
    }

    /** Every change of a user is a change of the subscriptions: bumps their version (and locks it). */
    private static long bumpSubscriptions(Connection c) throws SQLException {
        update(c, "UPDATE subscription_head SET version = version + 1 WHERE id = 1");
        return one(query(c, "SELECT version FROM subscription_head WHERE id = 1", rs -> rs.getLong(1)))
                .orElseThrow(() -> new SQLException("subscription_head row missing"));
    }

    /** Locks the subscriptions and checks that they are still at {@code expected}. */
    private static void expectSubscriptions(Connection c, long expected) throws SQLException {
        long now = one(query(c, "SELECT version FROM subscription_head WHERE id = 1 FOR UPDATE", rs -> rs.getLong(1)))
                .orElseThrow(() -> new SQLException("subscription_head row missing"));
        if (now != expected)
            throw KnowledgeBaseException.conflict("subscriptions changed meanwhile (version " + now + ", expected " + expected
                    + "): decide again");
    }

    private static void requireClass(Connection c, String field, String className) throws SQLException {
        if (!exists(c, "SELECT 1 FROM service_class WHERE name = ?", className))
            throw KnowledgeBaseException.invalid(field + ": unknown service class '" + className + "'");
    }

    private static void insertUser(Connection c, User u) throws SQLException {
        update(c, "INSERT INTO app_user (" + USER_COLUMNS + ") VALUES (?, ?, ?, ?, ?)", u.name(), u.serviceClass(), u.rate(), u.passwordHash(),
                u.role().label());
    }

    private static int updateUserRow(Connection c, User u) throws SQLException {
        return update(c, "UPDATE app_user SET class_name = ?, rate = ?, password_hash = ?, role = ? WHERE name = ?",
                u.serviceClass(), u.rate(), u.passwordHash(), u.role().label(), u.name());
    }

    @Override
    public void addUser(User u) {
        validate(u);
        tx("add user '" + u.name() + "'", c -> {
            requireClass(c, "user.serviceClass", u.serviceClass());
            if (exists(c, "SELECT 1 FROM app_user WHERE name = ?", u.name()))
                throw KnowledgeBaseException.conflict("user.name: '" + u.name() + "' already exists");
            insertUser(c, u);
            bumpSubscriptions(c);
            return null;
        });
    }

    @Override
    public void putUser(User u) {
        validate(u);
        upsert("put user '" + u.name() + "'", c -> {
            requireClass(c, "user.serviceClass", u.serviceClass());
            if (updateUserRow(c, u) == 0) insertUser(c, u);
            bumpSubscriptions(c);
            return null;
        });
    }

    @Override
    public User updateUser(String name, UnaryOperator<User> change) {
        String what = "update user '" + name + "'";
        return tx(what, c -> {
            User current = one(query(c, "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ? FOR UPDATE", JdbcKnowledgeBase::user, name))
                    .orElseThrow(() -> KnowledgeBaseException.notFound("user.name: no user '" + name + "'"));
            User next = apply(what, change, current);
            validate(next);
            if (!next.name().equals(name)) throw KnowledgeBaseException.invalid(what + ": user.name cannot change");
            requireClass(c, "user.serviceClass", next.serviceClass());
            updateUserRow(c, next);
            bumpSubscriptions(c);
            return next;
        });
    }

    @Override
    public Optional<User> user(String name) {
        return tx("read user '" + name + "'", c -> one(query(c,
                "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ?", JdbcKnowledgeBase::user, name)));
    }

    @Override
    public List<User> users() {
        return tx("list users", c -> query(c, "SELECT " + USER_COLUMNS + " FROM app_user ORDER BY name", JdbcKnowledgeBase::user));
    }

    @Override
    public List<User> users(String serviceClass) {
        return tx("list users of class '" + serviceClass + "'", c -> query(c,
                "SELECT " + USER_COLUMNS + " FROM app_user WHERE class_name = ? ORDER BY name", JdbcKnowledgeBase::user, serviceClass));
    }

    @Override
    public boolean removeUser(String name) {
        return tx("remove user '" + name + "'", c -> {
            boolean removed = update(c, "DELETE FROM app_user WHERE name = ?", name) > 0;
            if (removed) bumpSubscriptions(c);
            return removed;
        });
    }

    // ------------------------------------------------------------------ subscriptions

    @Override
    public long subscriptionsVersion() {
        return tx("read subscriptions version", c -> one(query(c, "SELECT version FROM subscription_head WHERE id = 1",
                rs -> rs.getLong(1))).orElse(0L));
    }

    @Override
    public long subscribe(User u, long expectedVersion) {
        validate(u);
        return tx("subscribe user '" + u.name() + "'", c -> {
            expectSubscriptions(c, expectedVersion);
            requireClass(c, "user.serviceClass", u.serviceClass());
            if (exists(c, "SELECT 1 FROM app_user WHERE name = ?", u.name()))
                throw KnowledgeBaseException.conflict("user.name: '" + u.name() + "' already exists");
            insertUser(c, u);
            return bumpSubscriptions(c);
        });
    }

    @Override
    public long changeSubscription(String name, String serviceClass, double rate, long expectedVersion) {
        name("user.serviceClass", serviceClass, NAME_MAX);
        finiteNonNegative("user.rate", rate);
        return tx("change subscription of '" + name + "'", c -> {
            expectSubscriptions(c, expectedVersion);
            User current = one(query(c, "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ? FOR UPDATE", JdbcKnowledgeBase::user, name))
                    .orElseThrow(() -> KnowledgeBaseException.notFound("user.name: no user '" + name + "'"));
            requireClass(c, "user.serviceClass", serviceClass);
            updateUserRow(c, current.withSubscription(serviceClass, rate));
            return bumpSubscriptions(c);
        });
    }

    // ------------------------------------------------------------------ plans

    @Override
    public Plan publish(Plan draft) {
        if (draft == null) throw KnowledgeBaseException.invalid("plan must not be null");
        finite("plan.objective", draft.objective());
        finiteNonNegative("plan.solveMillis", draft.solveMillis());
        String solver = name("plan.solver", draft.solver(), NAME_MAX);
        String reason = truncate(draft.reason(), TEXT_MAX);
        Instant created = draft.created() == null ? Instant.now() : draft.created();
        draft.predictions().forEach((k, p) -> {
            String f = "plan.predictions[" + k + "]";
            name(f + ".serviceClass", k, NAME_MAX);
            finiteNonNegative(f + ".responseTime", p.responseTime());
            double a = p.availability();
            if (!(a >= 0 && a <= 1)) throw KnowledgeBaseException.invalid(f + ".availability must be in [0, 1], was " + a);
            finiteNonNegative(f + ".cost", p.cost());
        });
        for (Plan.ClassAtRisk r : draft.atRisk()) {
            String f = "plan.atRisk[" + r.serviceClass() + "]";
            name(f + ".serviceClass", r.serviceClass(), NAME_MAX);
            finite(f + ".responseTimeExcess", r.responseTimeExcess());
            finite(f + ".availabilityShortfall", r.availabilityShortfall());
            finite(f + ".costExcess", r.costExcess());
        }
        for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
            String f = "plan.bindings[" + e.getKey().serviceClass() + ", " + e.getKey().task() + "]";
            name(f + ".serviceClass", e.getKey().serviceClass(), NAME_MAX);
            task(f + ".task", e.getKey().task());
            if (e.getValue().isEmpty()) throw KnowledgeBaseException.invalid(f + " has no shares");
            double sum = 0;
            for (Plan.Share s : e.getValue()) {
                double x = s.fraction();
                if (!(x >= 0 && x <= 1)) throw KnowledgeBaseException.invalid(f + ".fraction must be in [0, 1], was " + x);
                if (s.implementation().toString().length() > 1000)
                    throw KnowledgeBaseException.invalid(f + ".implementation is too long");
                sum += x;
            }
            if (Math.abs(sum - 1) > FRACTION_TOLERANCE)
                throw KnowledgeBaseException.invalid(f + ": fractions must sum to 1, sum to " + sum);
        }
        return tx("publish plan", c -> {
            checkReferences(c, draft);
            update(c, "UPDATE plan_head SET version = version + 1 WHERE id = 1"); // row lock: one publisher at a time
            long version = one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1)))
                    .orElseThrow(() -> new SQLException("plan_head row missing"));
            update(c, "INSERT INTO plan (version, created_ms, objective, solver, solve_millis, reason) VALUES (?, ?, ?, ?, ?, ?)",
                    version, created.toEpochMilli(), draft.objective(), solver, draft.solveMillis(), reason);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO plan_share (version, class_name, composite, task, position, "
                    + "implementation, fraction) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
                    int pos = 0;
                    for (Plan.Share s : e.getValue()) {
                        ps.setLong(1, version);
                        ps.setString(2, e.getKey().serviceClass());
                        ps.setString(3, e.getKey().task().composite());
                        ps.setString(4, e.getKey().task().name());
                        ps.setInt(5, pos++);
                        ps.setString(6, s.implementation().toString());
                        ps.setDouble(7, s.fraction());
                        ps.addBatch();
                    }
                }
                ps.executeBatch();
            }
            for (Map.Entry<String, Plan.Prediction> e : draft.predictions().entrySet())
                update(c, "INSERT INTO plan_prediction (version, class_name, response_time, availability, cost) VALUES (?, ?, ?, ?, ?)",
                        version, e.getKey(), e.getValue().responseTime(), e.getValue().availability(), e.getValue().cost());
            for (Plan.ClassAtRisk r : draft.atRisk())
                update(c, "INSERT INTO plan_at_risk (version, class_name, response_time_excess, availability_shortfall, cost_excess, "
                                + "breaks_sla) VALUES (?, ?, ?, ?, ?, ?)",
                        version, r.serviceClass(), r.responseTimeExcess(), r.availabilityShortfall(), r.costExcess(), r.breaksSla());
            Instant stored = Instant.ofEpochMilli(created.toEpochMilli());
            return new Plan(version, stored, draft.bindings(), draft.predictions(), draft.objective(), solver,
                    draft.solveMillis(), draft.atRisk(), reason);
        });
    }

    /** Classes, tasks and members of a plan must be known, and each member must implement its task. */
    private static void checkReferences(Connection c, Plan draft) throws SQLException {
        Set<String> classes = new HashSet<>(query(c, "SELECT name FROM service_class", rs -> rs.getString(1)));
        Map<String, TaskRef> services = new HashMap<>();
        query(c, "SELECT name, composite, task FROM concrete_service", rs -> services.put(rs.getString(1),
                new TaskRef(rs.getString(2), rs.getString(3))));
        for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
            Plan.Key k = e.getKey();
            String f = "plan.bindings[" + k.serviceClass() + ", " + k.task() + "]";
            if (!classes.contains(k.serviceClass()))
                throw KnowledgeBaseException.invalid(f + ".serviceClass: unknown service class '" + k.serviceClass() + "'");
            for (Plan.Share s : e.getValue())
                for (String m : s.implementation().members()) {
                    TaskRef t = services.get(m);
                    if (t == null)
                        throw KnowledgeBaseException.invalid(f + ".implementation " + s.implementation()
                                + ": unknown concrete service '" + m + "'");
                    if (!t.equals(k.task()))
                        throw KnowledgeBaseException.invalid(f + ".implementation " + s.implementation()
                                + ": concrete service '" + m + "' implements " + t + ", not " + k.task());
                }
        }
        for (String k : draft.predictions().keySet())
            if (!classes.contains(k)) throw KnowledgeBaseException.invalid("plan.predictions: unknown service class '" + k + "'");
        for (Plan.ClassAtRisk r : draft.atRisk())
            if (!classes.contains(r.serviceClass()))
                throw KnowledgeBaseException.invalid("plan.atRisk: unknown service class '" + r.serviceClass() + "'");
    }

    @Override
    public long latestPlanVersion() {
        return tx("read latest plan version", c -> one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1))).orElse(0L));
    }

    @Override
    public Optional<Plan> latestPlan() {
        return tx("read latest plan", c -> {
            long v = one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1))).orElse(0L);
            return v == 0 ? Optional.empty() : loadPlan(c, v);
        });
    }

    @Override
    public Optional<Plan> plan(long version) {
        return tx("read plan " + version, c -> loadPlan(c, version));
    }

    @Override
    public List<Plan> planHistory(int n) {
        if (n < 0) throw KnowledgeBaseException.invalid("n must be >= 0, was " + n);
        if (n == 0) return List.of();
        return tx("read plan history", c -> {
            List<Long> versions = query(c, n, "SELECT version FROM plan ORDER BY version DESC", rs -> rs.getLong(1));
            List<Plan> out = new ArrayList<>();
            for (long v : versions) loadPlan(c, v).ifPresent(out::add);
            return out;
        });
    }

    private static Optional<Plan> loadPlan(Connection c, long version) throws SQLException {
        record Head(Instant created, double objective, String solver, double solveMillis, String reason) {}
        Optional<Head> head = one(query(c, "SELECT created_ms, objective, solver, solve_millis, reason FROM plan WHERE version = ?",
                rs -> new Head(Instant.ofEpochMilli(rs.getLong(1)), rs.getDouble(2), rs.getString(3), rs.getDouble(4), rs.getString(5)),
                version));
        if (head.isEmpty()) return Optional.empty();
        Map<Plan.Key, List<Plan.Share>> bindings = new LinkedHashMap<>();
        query(c, "SELECT class_name, composite, task, implementation, fraction FROM plan_share WHERE version = ? "
                        + "ORDER BY class_name, composite, task, position",
                rs -> bindings.computeIfAbsent(new Plan.Key(rs.getString(1), new TaskRef(rs.getString(2), rs.getString(3))),
                        k -> new ArrayList<>()).add(new Plan.Share(Implementation.parse(rs.getString(4)), rs.getDouble(5))),
                version);
        Map<String, Plan.Prediction> predictions = new LinkedHashMap<>();
        query(c, "SELECT class_name, response_time, availability, cost FROM plan_prediction WHERE version = ? ORDER BY class_name",
                rs -> predictions.put(rs.getString(1), new Plan.Prediction(rs.getDouble(2), rs.getDouble(3), rs.getDouble(4))), version);
        List<Plan.ClassAtRisk> atRisk = query(c, "SELECT class_name, response_time_excess, availability_shortfall, cost_excess, breaks_sla "
                        + "FROM plan_at_risk WHERE version = ? ORDER BY class_name",
                rs -> new Plan.ClassAtRisk(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getBoolean(5)), version);
        Head h = head.get();
        return Optional.of(new Plan(version, h.created(), bindings, predictions, h.objective(), h.solver(), h.solveMillis(), atRisk, h.reason()));
    }

    // ------------------------------------------------------------------ observations

    @Override
    public void putServiceQos(Observation.ServiceQos q) {
        if (q == null) throw KnowledgeBaseException.invalid("serviceQos must not be null");
        name("serviceQos.service", q.service(), NAME_MAX);
        finiteNonNegative("serviceQos.responseTime", q.responseTime());
        if (!(q.availability() >= 0 && q.availability() <= 1))
            throw KnowledgeBaseException.invalid("serviceQos.availability must be in [0, 1], was " + q.availability());
        if (q.samples() < 0) throw KnowledgeBaseException.invalid("serviceQos.samples must be >= 0, was " + q.samples());
        if (q.at() == null) throw KnowledgeBaseException.invalid("serviceQos.at must not be null");
        upsert("put QoS of '" + q.service() + "'", c -> {
            if (!exists(c, "SELECT 1 FROM concrete_service WHERE name = ?", q.service()))
                throw KnowledgeBaseException.invalid("serviceQos.service: unknown concrete service '" + q.service() + "'");
            if (update(c, "UPDATE service_qos SET response_time = ?, availability = ?, samples = ?, at_ms = ? WHERE service = ?",
                    q.responseTime(), q.availability(), q.samples(), q.at().toEpochMilli(), q.service()) == 0)
                update(c, "INSERT INTO service_qos (service, response_time, availability, samples, at_ms) VALUES (?, ?, ?, ?, ?)",
                        q.service(), q.responseTime(), q.availability(), q.samples(), q.at().toEpochMilli());
            return null;
        });
    }

    private static Observation.ServiceQos qos(ResultSet rs) throws SQLException {
        return new Observation.ServiceQos(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getLong(4), Instant.ofEpochMilli(rs.getLong(5)));
    }

    @Override
    public Optional<Observation.ServiceQos> serviceQos(String service) {
        return tx("read QoS of '" + service + "'", c -> one(query(c,
                "SELECT service, response_time, availability, samples, at_ms FROM service_qos WHERE service = ?", JdbcKnowledgeBase::qos, service)));
    }

    @Override
    public List<Observation.ServiceQos> serviceQos() {
        return tx("list observed QoS", c -> query(c,
                "SELECT service, response_time, availability, samples, at_ms FROM service_qos ORDER BY service", JdbcKnowledgeBase::qos));
    }

    @Override
    public void putVisits(Observation.Visits v) {
        if (v == null) throw KnowledgeBaseException.invalid("visits must not be null");
        name("visits.serviceClass", v.serviceClass(), NAME_MAX);
        task("visits.task", v.task());
        finiteNonNegative("visits.visits", v.visits());
        if (v.samples() < 0) throw KnowledgeBaseException.invalid("visits.samples must be >= 0, was " + v.samples());
        if (v.at() == null) throw KnowledgeBaseException.invalid("visits.at must not be null");
        upsert("put visits of " + v.task() + " by '" + v.serviceClass() + "'", c -> {
            requireClass(c, "visits.serviceClass", v.serviceClass());
            if (!exists(c, "SELECT 1 FROM task WHERE composite = ? AND name = ?", v.task().composite(), v.task().name()))
                throw KnowledgeBaseException.invalid("visits.task: unknown task " + v.task());
            if (update(c, "UPDATE visits SET visits = ?, samples = ?, at_ms = ? WHERE class_name = ? AND composite = ? AND task = ?",
                    v.visits(), v.samples(), v.at().toEpochMilli(), v.serviceClass(), v.task().composite(), v.task().name()) == 0)
                update(c, "INSERT INTO visits (class_name, composite, task, visits, samples, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                        v.serviceClass(), v.task().composite(), v.task().name(), v.visits(), v.samples(), v.at().toEpochMilli());
            return null;
        });
    }

    @Override
    public List<Observation.Visits> visits() {
        return tx("list visits", c -> query(c,
                "SELECT class_name, composite, task, visits, samples, at_ms FROM visits ORDER BY class_name, composite, task",
                rs -> new Observation.Visits(rs.getString(1), new TaskRef(rs.getString(2), rs.getString(3)), rs.getDouble(4),
                        rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6)))));
    }

    // ------------------------------------------------------------------ SLA events

    @Override
    public void recordSlaEvent(SlaEvent e) {
        if (e == null) throw KnowledgeBaseException.invalid("slaEvent must not be null");
        if (e.at() == null) throw KnowledgeBaseException.invalid("slaEvent.at must not be null");
        if (e.kind() == null) throw KnowledgeBaseException.invalid("slaEvent.kind must not be null");
        if (e.serviceClass() != null) name("slaEvent.serviceClass", e.serviceClass(), NAME_MAX);
        if (e.user() != null) name("slaEvent.user", e.user(), NAME_MAX);
        tx("record SLA event", c -> {
            update(c, "UPDATE id_counter SET next_id = next_id + 1 WHERE name = 'sla_event'");
            long id = one(query(c, "SELECT next_id - 1 FROM id_counter WHERE name = 'sla_event'", rs -> rs.getLong(1)))
                    .orElseThrow(() -> new SQLException("id_counter row missing"));
            update(c, "INSERT INTO sla_event (id, at_ms, kind, class_name, user_name, detail) VALUES (?, ?, ?, ?, ?, ?)",
                    id, e.at().toEpochMilli(), e.kind().name(), e.serviceClass(), e.user(), truncate(e.detail(), TEXT_MAX));
            return null;
        });
    }

    @Override
    public List<SlaEvent> slaEvents(Instant since, int limit) {
        if (limit < 0) throw KnowledgeBaseException.invalid("limit must be >= 0, was " + limit);
        if (limit == 0) return List.of();
        long from = since == null ? Long.MIN_VALUE : since.toEpochMilli();
        return tx("list SLA events", c -> query(c, limit,
                "SELECT at_ms, kind, class_name, user_name, detail FROM sla_event WHERE at_ms >= ? ORDER BY at_ms, id",
                rs -> new SlaEvent(Instant.ofEpochMilli(rs.getLong(1)), SlaEvent.Kind.valueOf(rs.getString(2)), rs.getString(3),
                        rs.getString(4), rs.getString(5)), from));
    }

    // ------------------------------------------------------------------ leases and replica windows

    @Override
    public Lease acquireLease(String name, String holder, Instant now, java.time.Duration ttl) {
        name("lease.name", name, NAME_MAX);
        name("lease.holder", holder, 200);
        if (now == null) throw KnowledgeBaseException.invalid("lease.now must not be null");
        if (ttl == null || ttl.isNegative() || ttl.isZero()) throw KnowledgeBaseException.invalid("lease.ttl must be positive, was " + ttl);
        long at = now.toEpochMilli();
        long until = at + ttl.toMillis();
        return upsert("acquire lease '" + name + "'", c -> {
            // one statement decides: renew (same holder, term kept) or take over (expired, term + 1)
            int n = update(c, "UPDATE leader_lease SET term = CASE WHEN holder = ? THEN term ELSE term + 1 END, holder = ?, "
                    + "expires_ms = ?, renewed_ms = ? WHERE name = ? AND (holder = ? OR expires_ms < ?)",
                    holder, holder, until, at, name, holder, at);
            if (n == 0 && !exists(c, "SELECT 1 FROM leader_lease WHERE name = ?", name))
                update(c, "INSERT INTO leader_lease (name, holder, term, expires_ms, renewed_ms) VALUES (?, ?, 1, ?, ?)",
                        name, holder, until, at);
            return readLease(c, name).orElseThrow(() -> new SQLException("lease row '" + name + "' missing"));
        });
    }

    @Override
    public boolean releaseLease(String name, String holder) {
        return tx("release lease '" + name + "'", c ->
                update(c, "UPDATE leader_lease SET expires_ms = 0 WHERE name = ? AND holder = ?", name, holder) > 0);
    }

    @Override
    public Optional<Lease> lease(String name) {
        return tx("read lease '" + name + "'", c -> readLease(c, name));
    }

    private static Optional<Lease> readLease(Connection c, String name) throws SQLException {
        return one(query(c, "SELECT name, holder, term, expires_ms FROM leader_lease WHERE name = ?",
                rs -> new Lease(rs.getString(1), rs.getString(2), rs.getLong(3), Instant.ofEpochMilli(rs.getLong(4))), name));
    }

    @Override
    public void putReplicaWindows(String replica, List<ReplicaWindow> windows) {
        name("replicaWindow.replica", replica, 200);
        for (ReplicaWindow w : windows) {
            if (!replica.equals(w.replica()))
                throw KnowledgeBaseException.invalid("replicaWindow.replica: a window of '" + w.replica() + "' in the windows of '" + replica + "'");
            name("replicaWindow.service", w.service(), NAME_MAX);
            if (w.at() == null) throw KnowledgeBaseException.invalid("replicaWindow.at must not be null");
        }
        tx("put windows of replica '" + replica + "'", c -> {
            update(c, "DELETE FROM replica_window WHERE replica = ?", replica);
            for (ReplicaWindow w : windows)
                update(c, "INSERT INTO replica_window (replica, service, successes, failures, response_time, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                        replica, w.service(), w.successes(), w.failures(), w.responseTime(), w.at().toEpochMilli());
            return null;
        });
    }

    @Override
    public List<ReplicaWindow> replicaWindows(Instant since) {
        long from = since == null ? Long.MIN_VALUE : since.toEpochMilli();
        return tx("list replica windows", c -> query(c,
                "SELECT replica, service, successes, failures, response_time, at_ms FROM replica_window WHERE at_ms >= ? ORDER BY replica, service",
                rs -> new ReplicaWindow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getDouble(5),
                        Instant.ofEpochMilli(rs.getLong(6))), from));
    }

    // ------------------------------------------------------------------ connection

    @Override
    public boolean isAvailable() {
        if (closed) return false;
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(1);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (h2InMemory) {
            // DB_CLOSE_DELAY=-1 keeps a named in-memory database alive; drop it with its last user
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // already gone
            }
        }
        dataSource.close();
        LOG.info("knowledge base closed: {}", description);
    }

    @Override
    public String toString() {
        return "KnowledgeBase[" + description + "]";
    }
}
