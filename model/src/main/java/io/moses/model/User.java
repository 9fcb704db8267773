package io.moses.model;

/**
 * A user subscribed to one service class at an agreed request rate.
 *
 * @param name         unique login name
 * @param serviceClass the class's name
 * @param rate         agreed rate l_u [req/s], &gt;= 0
 * @param passwordHash salted hash of the password, never the password
 */
public record User(String name, String serviceClass, double rate, String passwordHash) {
    public User {
        Domain.name("name", name);
        Domain.name("serviceClass", serviceClass);
        Domain.nonNegative("rate", rate);
    }

    @Override
    public String toString() {
        return "User[" + name + ", class=" + serviceClass + ", rate=" + rate + "]";
    }
}
