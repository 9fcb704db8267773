package io.moses.core.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Console sessions over a knowledge base (in-memory H2; the store's contract on MariaDB is mdal's OperatorStateTest). */
class ConsoleSessionsTest {
    final AtomicLong now = new AtomicLong(1_000_000);
    final KnowledgeBase kb = Mdal.open("mem:sessions" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE);
    final ConsoleSessions sessions = new ConsoleSessions(kb.operatorSessions(), 1_000, now::get);
    /** Another replica on the same knowledge base. */
    final ConsoleSessions other = new ConsoleSessions(kb.operatorSessions(), 1_000, now::get);

    {
        kb.addServiceClass(new ServiceClass("gold", 1.5, 0.99, 10, 12));
        kb.addUser(new User("olga", "gold", 0, PasswordHasher.hash("x".toCharArray(), 1000), Role.OPERATOR));
    }

    @AfterEach
    void close() {
        kb.close();
    }

    @Test
    void aSessionLastsWhileUsedAndEndsAfterItsIdleTimeOrAtLogout() {
        String t = sessions.open("olga");
        assertEquals(43, t.length(), "256 random bits, base64url");
        assertNotEquals(t, sessions.open("olga"), "every login its own token");
        now.addAndGet(900);
        assertEquals("olga", other.user(t).name());
        now.addAndGet(900); // 1.8 s since the login, 0.9 s since the last use
        assertEquals("olga", sessions.user(t).name());
        now.addAndGet(1_100);
        assertNull(other.user(t), "idle too long");
        String u = sessions.open("olga");
        other.close(u);
        assertNull(sessions.user(u), "a logout on another replica");
        assertNull(sessions.user(null));
        assertNull(sessions.user("guessed"));
    }

    @Test
    void aSessionEndsWhenItsUserStopsBeingAnOperator() {
        String t = sessions.open("olga");
        kb.updateUser("olga", x -> new User(x.name(), x.serviceClass(), x.rate(), x.passwordHash(), Role.USER));
        assertNull(other.user(t));
    }
}
