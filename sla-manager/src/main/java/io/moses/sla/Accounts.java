package io.moses.sla;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The users' passwords: the owner changes its own (having authenticated with the current one),
 * an operator resets anyone's; and the first operator of a deployment, created from a secret
 * file. The same rules whichever way in (SOAP, admin API, console). A change ends the user's
 * console sessions on every replica and bumps the subscriptions' version, which every replica's
 * user cache reloads on.
 */
public final class Accounts {
    private static final Logger log = LoggerFactory.getLogger(Accounts.class);
    static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,99}");
    public static final int MIN_PASSWORD = 8;
    public static final int MAX_PASSWORD = 200;
    /**
     * The class the first operator joins when the knowledge base has none yet (a user needs a
     * class): its SLA asks nothing, and an operator's rate of 0 adds no load.
     */
    public static final String OPERATORS_CLASS = "operators";

    private final KnowledgeBase kb;
    private final Consumer<String> changed;

    /** @param changed told the user's name after its password changed (this replica reloads its users at once) */
    public Accounts(KnowledgeBase kb, Consumer<String> changed) {
        this.kb = kb;
        this.changed = changed;
    }

    static void requireValidName(String name) {
        if (name == null || !USER_NAME.matcher(name).matches())
            throw new SlaException(SlaException.Code.INVALID, "user must be 1 to 100 letters, digits, '.', '_', '@' or '-', "
                    + "starting with a letter or digit, was '" + name + "'");
    }

    static void requireValidPassword(String password) {
        if (password == null || password.length() < MIN_PASSWORD || password.length() > MAX_PASSWORD)
            throw new SlaException(SlaException.Code.INVALID, "password must be " + MIN_PASSWORD + " to " + MAX_PASSWORD + " characters");
    }

    /**
     * Sets a user's password.
     *
     * @param caller   the authenticated caller
     * @param name     whose password (null or blank: the caller's own); only an operator names another user
     * @param password the new password
     * @return the user's name
     */
    public String changePassword(User caller, String name, String password) {
        if (caller == null) throw new SlaException(SlaException.Code.UNAUTHENTICATED, "authentication required: send HTTP Basic credentials");
        String target = name == null || name.isBlank() ? caller.name() : name;
        boolean own = target.equals(caller.name());
        if (!own && !caller.isOperator())
            throw new SlaException(SlaException.Code.FORBIDDEN, "only an operator sets another user's password");
        requireValidPassword(password);
        String hash = PasswordHasher.hash(password.toCharArray());
        SlaException.orRefuse(() -> kb.updateUser(target, u -> new User(u.name(), u.serviceClass(), u.rate(), hash, u.role())),
                e -> SlaException.from(e, SlaException.Code.UNKNOWN_USER, SlaException.Code.BUSY));
        int sessions;
        try {
            sessions = kb.operatorSessions().closeAll(target);
        } catch (KnowledgeBaseException e) {
            sessions = 0; // the password is changed; a session left open still ends at its idle time
            log.warn("console sessions of {} not ended after its password changed: {}", target, e.getMessage());
        }
        log.info("password of {} {} by {}{}", target, own ? "changed" : "reset", caller.name(),
                sessions > 0 ? ", " + sessions + " console session(s) ended" : "");
        changed.accept(target);
        return target;
    }

    /** What {@link #ensureOperator} did. */
    public enum FirstOperator { CREATED, EXISTS }

    /**
     * Creates operator {@code name} with {@code password} unless the knowledge base already has
     * an operator. It joins the cheapest class, or {@link #OPERATORS_CLASS} made for it when there
     * is none, at rate 0.
     *
     * @throws IllegalArgumentException for a bad name or password, or a user of that name who is not an operator
     */
    public static FirstOperator ensureOperator(KnowledgeBase kb, String name, char[] password) {
        List<User> operators = kb.users().stream().filter(User::isOperator).toList();
        if (!operators.isEmpty()) return FirstOperator.EXISTS;
        requireValidOperator(name, password);
        if (kb.user(name).isPresent())
            throw new IllegalArgumentException("user '" + name + "' exists and is not an operator: choose another name, "
                    + "or have an operator change its role");
        try {
            create(kb, name, password);
        } catch (KnowledgeBaseException e) {
            // another replica starting with the same file created it first
            if (e.kind() == KnowledgeBaseException.Kind.CONFLICT && kb.user(name).map(User::isOperator).orElse(false))
                return FirstOperator.EXISTS;
            throw e;
        }
        return FirstOperator.CREATED;
    }

    /**
     * Creates operator {@code name}, or sets its password if it exists (ending its console
     * sessions): what an operator locked out does against the knowledge base, no broker needed.
     *
     * @return true when it was created
     * @throws IllegalArgumentException for a bad name or password, or a user of that name who is not an operator
     */
    public static boolean setOperator(KnowledgeBase kb, String name, char[] password) {
        requireValidOperator(name, password);
        Optional<User> existing = kb.user(name);
        if (existing.isEmpty()) {
            create(kb, name, password);
            return true;
        }
        if (!existing.get().isOperator())
            throw new IllegalArgumentException("user '" + name + "' exists and is not an operator");
        String hash = PasswordHasher.hash(password);
        kb.updateUser(name, u -> new User(u.name(), u.serviceClass(), u.rate(), hash, u.role()));
        kb.operatorSessions().closeAll(name);
        return false;
    }

    private static void requireValidOperator(String name, char[] password) {
        try {
            requireValidName(name);
            requireValidPassword(new String(password));
        } catch (SlaException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** A new operator at rate 0 in the cheapest class, or in {@link #OPERATORS_CLASS} made for it when there is none. */
    private static void create(KnowledgeBase kb, String name, char[] password) {
        Optional<ServiceClass> cheapest = kb.serviceClasses().stream().min(Comparator.comparingDouble(ServiceClass::price));
        String cls = cheapest.map(ServiceClass::name).orElse(OPERATORS_CLASS);
        if (cheapest.isEmpty()) kb.putServiceClass(new ServiceClass(OPERATORS_CLASS, 3600, 0.01, 1e6, 0));
        kb.addUser(new User(name, cls, 0, PasswordHasher.hash(password), Role.OPERATOR));
    }
}
