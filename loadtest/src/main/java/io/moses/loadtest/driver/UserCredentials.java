package io.moses.loadtest.driver;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * HTTP Basic credentials of one simulated user (the load driver's own: loadtest depends on no broker
 * module; the broker parses them with model's {@code auth.BasicCredentials}).
 */
public record UserCredentials(String user, String password) {
    public UserCredentials {
        if (user == null || user.isEmpty()) throw new IllegalArgumentException("credentials: user must not be empty");
        if (user.indexOf(':') >= 0) throw new IllegalArgumentException("credentials: user must not contain ':' (" + user + ")");
        if (password == null) throw new IllegalArgumentException("credentials: password must not be null for user " + user);
    }

    /** Parses {@code user:password}; the password may itself contain ':'. */
    public static UserCredentials parse(String userColonPassword) {
        int colon = userColonPassword == null ? -1 : userColonPassword.indexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("credentials: expected user:password, got '"
                + (userColonPassword == null ? "" : userColonPassword.replaceAll(":.*", ":***")) + "'");
        return new UserCredentials(userColonPassword.substring(0, colon), userColonPassword.substring(colon + 1));
    }

    String authorizationHeader() {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** Never prints the password (reports and logs carry this). */
    @Override
    public String toString() {
        return user + ":***";
    }
}
