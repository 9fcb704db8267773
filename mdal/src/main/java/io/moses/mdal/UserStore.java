package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.Role;
import io.moses.model.User;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Users with their roles and subscriptions (class and rate): every change of a user bumps the
 * subscriptions version, which the SLA manager's admission decisions check.
 */
final class UserStore {
    private final Database db;

    UserStore(Database db) {
        this.db = db;
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

    private static final String USER_COLUMNS = "name, class_name, rate, password_hash, role";

    static User user(ResultSet rs) throws SQLException {
        return new User(rs.getString(1), rs.getString(2), rs.getDouble(3), rs.getString(4), Role.parse("app_user.role", rs.getString(5)));
    }

    /**
     * Every change of an input of an admission decision (a user, a concrete service, a service
     * class, a composite's model) bumps the version the SLA Manager decides on (and locks it), so
     * that a decision stored on an older version, on this replica or another, is refused and made
     * again with what is there now.
     */
    static long bumpSubscriptions(Connection c) throws SQLException {
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

    private static void insertUser(Connection c, User u) throws SQLException {
        update(c, "INSERT INTO app_user (" + USER_COLUMNS + ") VALUES (?, ?, ?, ?, ?)", u.name(), u.serviceClass(), u.rate(), u.passwordHash(),
                u.role().label());
    }

    private static int updateUserRow(Connection c, User u) throws SQLException {
        return update(c, "UPDATE app_user SET class_name = ?, rate = ?, password_hash = ?, role = ? WHERE name = ?",
                u.serviceClass(), u.rate(), u.passwordHash(), u.role().label(), u.name());
    }

    void addUser(User u) {
        validate(u);
        db.tx("add user '" + u.name() + "'", c -> {
            ServiceClassStore.requireClass(c, "user.serviceClass", u.serviceClass());
            if (exists(c, "SELECT 1 FROM app_user WHERE name = ?", u.name()))
                throw KnowledgeBaseException.conflict("user.name: '" + u.name() + "' already exists");
            insertUser(c, u);
            bumpSubscriptions(c);
            return null;
        });
    }

    void putUser(User u) {
        validate(u);
        db.upsert("put user '" + u.name() + "'", c -> {
            ServiceClassStore.requireClass(c, "user.serviceClass", u.serviceClass());
            if (updateUserRow(c, u) == 0) insertUser(c, u);
            bumpSubscriptions(c);
            return null;
        });
    }

    private static final LockedChange<User> CHANGE = new LockedChange<>("user", "user",
            "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ? FOR UPDATE", UserStore::user, UserStore::validate, User::name);

    User updateUser(String name, UnaryOperator<User> change) {
        String what = "update user '" + name + "'";
        return db.tx(what, c -> {
            User next = CHANGE.apply(c, what, name, change);
            ServiceClassStore.requireClass(c, "user.serviceClass", next.serviceClass());
            updateUserRow(c, next);
            bumpSubscriptions(c);
            return next;
        });
    }

    Optional<User> user(String name) {
        return db.tx("read user '" + name + "'", c -> one(query(c,
                "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ?", UserStore::user, name)));
    }

    List<User> users() {
        return db.tx("list users", c -> query(c, "SELECT " + USER_COLUMNS + " FROM app_user ORDER BY name", UserStore::user));
    }

    List<User> users(String serviceClass) {
        return db.tx("list users of class '" + serviceClass + "'", c -> query(c,
                "SELECT " + USER_COLUMNS + " FROM app_user WHERE class_name = ? ORDER BY name", UserStore::user, serviceClass));
    }

    boolean removeUser(String name) {
        return db.tx("remove user '" + name + "'", c -> {
            boolean removed = update(c, "DELETE FROM app_user WHERE name = ?", name) > 0;
            if (removed) bumpSubscriptions(c);
            return removed;
        });
    }

    long subscriptionsVersion() {
        return db.tx("read subscriptions version", c -> one(query(c, "SELECT version FROM subscription_head WHERE id = 1",
                rs -> rs.getLong(1))).orElse(0L));
    }

    long subscribe(User u, long expectedVersion) {
        validate(u);
        return db.tx("subscribe user '" + u.name() + "'", c -> {
            expectSubscriptions(c, expectedVersion);
            ServiceClassStore.requireClass(c, "user.serviceClass", u.serviceClass());
            if (exists(c, "SELECT 1 FROM app_user WHERE name = ?", u.name()))
                throw KnowledgeBaseException.conflict("user.name: '" + u.name() + "' already exists");
            insertUser(c, u);
            return bumpSubscriptions(c);
        });
    }

    long changeSubscription(String name, String serviceClass, double rate, long expectedVersion) {
        name("user.serviceClass", serviceClass, NAME_MAX);
        finiteNonNegative("user.rate", rate);
        return db.tx("change subscription of '" + name + "'", c -> {
            expectSubscriptions(c, expectedVersion);
            User current = one(query(c, "SELECT " + USER_COLUMNS + " FROM app_user WHERE name = ? FOR UPDATE", UserStore::user, name))
                    .orElseThrow(() -> KnowledgeBaseException.notFound("user.name: no user '" + name + "'"));
            ServiceClassStore.requireClass(c, "user.serviceClass", serviceClass);
            updateUserRow(c, current.withSubscription(serviceClass, rate));
            return bumpSubscriptions(c);
        });
    }
}
