package io.moses.model;

import java.util.Objects;

/**
 * A user subscribed to one service class at an agreed request rate.
 *
 * @param name         unique login name
 * @param serviceClass the class's name
 * @param rate         agreed rate l_u [req/s], &gt;= 0
 * @param passwordHash salted hash of the password, never the password
 * @param role         what the user may do
 */
public record User(String name, String serviceClass, double rate, String passwordHash, Role role) {
    public User {
        Domain.name("name", name);
        Domain.name("serviceClass", serviceClass);
        Domain.nonNegative("rate", rate);
        Objects.requireNonNull(role, "role");
    }

    /** A user with the {@link Role#USER} role. */
    public User(String name, String serviceClass, double rate, String passwordHash) {
        this(name, serviceClass, rate, passwordHash, Role.USER);
    }

    public boolean isOperator() {
        return role == Role.OPERATOR;
    }

    public User withSubscription(String serviceClass, double rate) {
        return new User(name, serviceClass, rate, passwordHash, role);
    }

    @Override
    public String toString() {
        return "User[" + name + ", class=" + serviceClass + ", rate=" + rate + (role == Role.USER ? "" : ", role=" + role.label()) + "]";
    }
}
