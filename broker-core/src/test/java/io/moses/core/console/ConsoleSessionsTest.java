package io.moses.core.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsoleSessionsTest {
    final AtomicLong now = new AtomicLong();
    final ConsoleSessions sessions = new ConsoleSessions(1_000, now::get);

    @Test
    void aSessionLastsWhileUsedAndEndsAfterItsIdleTimeOrAtLogout() {
        String t = sessions.open("olga");
        assertEquals(43, t.length(), "256 random bits, base64url");
        assertNotEquals(t, sessions.open("olga"), "every login its own token");
        now.addAndGet(900_000_000L);
        assertEquals("olga", sessions.user(t));
        now.addAndGet(900_000_000L); // 1.8 s since the login, 0.9 s since the last use
        assertEquals("olga", sessions.user(t));
        now.addAndGet(1_100_000_000L);
        assertNull(sessions.user(t), "idle too long");
        String u = sessions.open("olga");
        sessions.close(u);
        assertNull(sessions.user(u));
        assertNull(sessions.user(null));
        assertNull(sessions.user("guessed"));
    }

    @Test
    void aFullTableDropsTheLeastRecentlyUsed() {
        String first = sessions.open("u0");
        for (int i = 1; i < ConsoleSessions.MAX_SESSIONS; i++) {
            now.incrementAndGet();
            sessions.open("u" + i);
        }
        now.incrementAndGet();
        sessions.user(first); // used: no longer the least recent
        now.incrementAndGet();
        String next = sessions.open("late");
        assertEquals(ConsoleSessions.MAX_SESSIONS, sessions.size());
        assertEquals("u0", sessions.user(first));
        assertEquals("late", sessions.user(next));
    }
}
