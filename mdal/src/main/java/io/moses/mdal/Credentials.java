package io.moses.mdal;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * A database user and password. {@link #toString()} never shows the password. Credentials in a
 * JDBC URL take precedence over these.
 *
 * @param user     the database user, or null for none
 * @param password the password, or null for none
 */
public record Credentials(String user, String password) {

    /** No credentials (H2, or a URL that carries its own). */
    public static final Credentials NONE = new Credentials(null, null);

    /** Environment variables read by {@link #fromEnvironment()}. */
    public static final String ENV_USER = "MOSES_DB_USER";
    public static final String ENV_PASSWORD = "MOSES_DB_PASSWORD";
    public static final String ENV_PASSWORD_FILE = "MOSES_DB_PASSWORD_FILE";

    public static Credentials of(String user, String password) {
        return new Credentials(user, password);
    }

    /**
     * {@code MOSES_DB_USER} and {@code MOSES_DB_PASSWORD}, or the first line of the file named by
     * {@code MOSES_DB_PASSWORD_FILE}; {@link #NONE} if none is set.
     */
    public static Credentials fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    static Credentials fromEnvironment(Map<String, String> env) {
        String user = blankToNull(env.get(ENV_USER));
        String password = env.get(ENV_PASSWORD);
        String file = blankToNull(env.get(ENV_PASSWORD_FILE));
        if (password == null && file != null) {
            try {
                password = Files.readAllLines(Path.of(file)).stream().findFirst().orElse("").strip();
            } catch (IOException e) {
                throw KnowledgeBaseException.invalid(ENV_PASSWORD_FILE + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
            }
        }
        return user == null && password == null ? NONE : new Credentials(user, password);
    }

    /** A properties file with {@code user=} and {@code password=}. */
    public static Credentials fromFile(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw KnowledgeBaseException.invalid("credentials file " + file + ": cannot read (" + e.getClass().getSimpleName() + ")");
        }
        String user = blankToNull(p.getProperty("user"));
        if (user == null) throw KnowledgeBaseException.invalid("credentials file " + file + ": user is missing");
        return new Credentials(user, p.getProperty("password", ""));
    }

    boolean isNone() {
        return user == null && password == null;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    @Override
    public String toString() {
        return "Credentials[user=" + user + ", password=" + (password == null ? "none" : "***") + "]";
    }
}
