package io.moses.sla;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.PasswordHasher;
import io.moses.model.User;
import io.moses.model.auth.BasicCredentials;
import io.moses.model.auth.LoginThrottle;

/**
 * Who calls a management service (its SOAP endpoints): HTTP Basic checked against the knowledge base itself (not a
 * replica's memory), so a user is known the moment its subscription is stored. Management
 * calls are rare: the slow password hash per call is affordable here, through the broker's
 * {@link LoginThrottle} (guessing is delayed after a few failures, hashes run a few at a time).
 */
public final class ManagementAuthenticator {
    private final KnowledgeBase kb;
    private final LoginThrottle logins;

    public ManagementAuthenticator(KnowledgeBase kb, LoginThrottle logins) {
        this.kb = kb;
        this.logins = logins;
    }

    /** The caller named by an {@code Authorization} header, or null when there is none. */
    User optional(String authorization) {
        if (authorization == null || authorization.isBlank()) return null;
        BasicCredentials credentials;
        try {
            credentials = BasicCredentials.parse(authorization);
        } catch (IllegalArgumentException e) {
            throw new SlaException(SlaException.Code.UNAUTHENTICATED, e.getMessage());
        }
        String name = credentials.user();
        char[] password = credentials.password().toCharArray();
        User user;
        try {
            user = kb.user(name).orElse(null);
        } catch (KnowledgeBaseException e) {
            throw new SlaException(SlaException.Code.UNAVAILABLE, "knowledge base unavailable: " + e.getMessage());
        }
        // one message for both: do not tell a stranger which names exist
        User found = user;
        boolean ok;
        try {
            ok = logins.check(name, () -> found != null && PasswordHasher.verify(password, found.passwordHash()));
        } catch (LoginThrottle.Refused e) {
            throw new SlaException(SlaException.Code.UNAUTHENTICATED, e.getMessage());
        }
        if (!ok) throw new SlaException(SlaException.Code.UNAUTHENTICATED, "unknown user or wrong password");
        return user;
    }

    /** The caller, who must have authenticated. */
    public User required(String authorization) {
        User u = optional(authorization);
        if (u == null)
            throw new SlaException(SlaException.Code.UNAUTHENTICATED, "authentication required: send HTTP Basic credentials");
        return u;
    }

    /** The caller, who must be an operator. */
    public User operator(String authorization) {
        User u = required(authorization);
        if (!u.isOperator()) throw new SlaException(SlaException.Code.FORBIDDEN, "user '" + u.name() + "' is not an operator");
        return u;
    }
}
