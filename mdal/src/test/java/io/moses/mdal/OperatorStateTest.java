package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's state is the cluster's (V5): console sessions and switches written through one
 * knowledge base object are seen through another on the same database (two replicas), on
 * in-memory H2 and on MariaDB.
 */
@Tag("e2e")
class OperatorStateTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final String HASH = PasswordHasher.hash("secret".toCharArray(), 1000);
    static final long IDLE = 1_000;

    static Stream<String> backEnds() {
        return Stream.of("h2", "mariadb");
    }

    /** Two knowledge base objects on one new database, as two replicas have, with operator olga and user alice. */
    static final class Replicas implements AutoCloseable {
        final String spec;
        final KnowledgeBase r1, r2;
        final String backEnd;

        Replicas(String backEnd) throws Exception {
            this.backEnd = backEnd;
            spec = backEnd.equals("h2") ? "mem:ops" + UUID.randomUUID().toString().replace("-", "") : MARIADB.createDatabase();
            Credentials cred = backEnd.equals("h2") ? Credentials.NONE : MARIADB.credentials();
            r1 = Mdal.open(spec, cred);
            r2 = Mdal.open(spec, cred);
            r1.addServiceClass(new ServiceClass("gold", 1.5, 0.99, 10, 12));
            r1.addUser(new User("olga", "gold", 0, HASH, Role.OPERATOR));
            r1.addUser(new User("alice", "gold", 1, HASH));
        }

        Connection raw() throws Exception {
            return backEnd.equals("h2") ? DriverManager.getConnection("jdbc:h2:" + spec, "sa", "")
                    : DriverManager.getConnection(spec.replace("jdbc:mariadb:", "jdbc:mysql:"), MARIADB.user(), MARIADB.password());
        }

        @Override
        public void close() {
            r2.close();
            r1.close();
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aSessionOpenedOnOneReplicaIsValidOnTheOtherAndALogoutEndsItOnBoth(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            String token = UUID.randomUUID() + "-secret-token";
            db.r1.operatorSessions().open(token, "olga", 0, IDLE);
            assertEquals("olga", db.r2.operatorSessions().operator(token, 10, IDLE).orElseThrow().name());
            assertEquals("olga", db.r1.operatorSessions().operator(token, 20, IDLE).orElseThrow().name());
            assertEquals(Optional.empty(), db.r2.operatorSessions().operator(token + "x", 20, IDLE), "another token");
            assertEquals(Optional.empty(), db.r2.operatorSessions().operator(null, 20, IDLE));
            // only the token's SHA-256 is stored
            try (Connection c = db.raw(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT token_hash, user_name FROM console_session")) {
                assertTrue(rs.next());
                assertEquals(OperatorSessionStore.hash(token), rs.getString(1));
                assertEquals(64, rs.getString(1).length());
                assertFalse(rs.getString(1).contains(token));
                assertFalse(rs.next());
            }
            assertTrue(db.r2.operatorSessions().close(token), "logout on r2");
            assertEquals(Optional.empty(), db.r1.operatorSessions().operator(token, 30, IDLE), "ended on r1 too");
            assertFalse(db.r1.operatorSessions().close(token), "already ended");
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aSessionLastsWhileUsedAndEndsAfterItsIdleTime(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            OperatorSessions s1 = db.r1.operatorSessions(), s2 = db.r2.operatorSessions();
            s1.open("t", "olga", 0, IDLE);
            assertEquals("olga", s2.operator("t", 900, IDLE).orElseThrow().name());
            assertEquals("olga", s1.operator("t", 1_800, IDLE).orElseThrow().name(), "0.9 s since its last use, 1.8 s since the login");
            assertEquals(Optional.empty(), s2.operator("t", 2_900, IDLE), "1.1 s idle");
            assertEquals(0, s1.count(), "an idle session found is forgotten");
            s1.open("u", "olga", 10_000, IDLE);
            s1.open("v", "olga", 20_000, IDLE); // forgets u, idle since 10 s
            assertEquals(1, s2.count());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aSessionInUseStillEndsAtItsAbsoluteLifetime(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            OperatorSessions s1 = db.r1.operatorSessions(), s2 = db.r2.operatorSessions();
            long maxAge = 3 * IDLE;
            s1.open("t", "olga", 0, IDLE);
            for (long now = IDLE / 2; now <= maxAge; now += IDLE / 2) // never idle
                assertEquals("olga", (now % IDLE == 0 ? s1 : s2).operator("t", now, IDLE, maxAge).orElseThrow().name(), "in use at " + now);
            assertEquals(Optional.empty(), s2.operator("t", maxAge + 1, IDLE, maxAge), "opened longer ago than its lifetime");
            assertEquals(0, s1.count(), "and ended");
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void anOperatorWhoLosesTheRoleOrIsRemovedLosesEverySession(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            OperatorSessions s1 = db.r1.operatorSessions(), s2 = db.r2.operatorSessions();
            KnowledgeBaseException notOperator = assertThrows(KnowledgeBaseException.class, () -> s1.open("a", "alice", 0, IDLE));
            assertEquals(KnowledgeBaseException.Kind.INVALID, notOperator.kind());
            assertEquals(KnowledgeBaseException.Kind.INVALID, assertThrows(KnowledgeBaseException.class,
                    () -> s1.open("n", "nobody", 0, IDLE)).kind());
            s1.open("o1", "olga", 0, IDLE);
            s1.open("o2", "olga", 0, IDLE);
            db.r1.updateUser("olga", u -> new User(u.name(), u.serviceClass(), u.rate(), u.passwordHash(), Role.USER));
            assertEquals(Optional.empty(), s2.operator("o1", 10, IDLE), "no operator any more");
            db.r2.updateUser("olga", u -> new User(u.name(), u.serviceClass(), u.rate(), u.passwordHash(), Role.OPERATOR));
            assertEquals(Optional.empty(), s2.operator("o1", 20, IDLE), "ended, not suspended");
            assertTrue(s2.operator("o2", 20, IDLE).orElseThrow().isOperator(), "o2 was not used meanwhile");
            assertTrue(db.r1.removeUser("olga"));
            assertEquals(Optional.empty(), s2.operator("o2", 30, IDLE), "a removed user");
            assertEquals(0, s1.count(), "removing the user removed its sessions");
            db.r1.addUser(new User("olga", "gold", 0, HASH, Role.OPERATOR));
            s1.open("p", "olga", 40, IDLE);
            s1.open("q", "olga", 40, IDLE);
            assertEquals(2, s2.closeAll("olga"));
            assertEquals(Optional.empty(), s1.operator("p", 50, IDLE));
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aFullTableDropsTheLeastRecentlyUsed(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            OperatorSessions s = db.r1.operatorSessions();
            long idle = 3_600_000;
            for (int i = 0; i < OperatorSessions.MAX_SESSIONS; i++) s.open("t" + i, "olga", 100_000 + i, idle);
            assertEquals("olga", s.operator("t0", 500_000, idle).orElseThrow().name()); // used: no longer the least recent
            s.open("late", "olga", 500_001, idle);
            assertEquals(OperatorSessions.MAX_SESSIONS, s.count());
            assertEquals(Optional.empty(), s.operator("t1", 500_002, idle), "the least recently used went");
            assertEquals("olga", s.operator("t0", 500_002, idle).orElseThrow().name());
            assertEquals("olga", db.r2.operatorSessions().operator("late", 500_002, idle).orElseThrow().name());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void switchesMovedOnOneReplicaAreSeenOnTheOtherWithTheNextVersion(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            OperatorSwitches o1 = db.r1.operatorSwitches(), o2 = db.r2.operatorSwitches();
            assertEquals(new OperatorSwitches.State(0, Set.of(), Set.of()), o2.state());
            assertFalse(o1.switchMonitor("ws-monitor", true, "olga"), "a monitor runs until switched off");
            assertEquals(0, o2.version());
            assertTrue(o1.switchMonitor("ws-monitor", false, "olga"));
            assertTrue(o1.holdOut("hotel-a", true, "olga"));
            assertFalse(o2.holdOut("hotel-a", true, "oscar"), "already out");
            assertEquals(2, o2.version());
            assertEquals(new OperatorSwitches.State(2, Set.of("ws-monitor"), Set.of("hotel-a")), o2.state());
            assertTrue(o2.holdOut("hotel-a", false, "oscar"));
            assertTrue(o2.switchMonitor("ws-monitor", true, "oscar"));
            assertEquals(new OperatorSwitches.State(4, Set.of(), Set.of()), o1.state());
            assertEquals(KnowledgeBaseException.Kind.INVALID, assertThrows(KnowledgeBaseException.class,
                    () -> o1.holdOut("", true, "olga")).kind());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void twoReplicasMovingOneSwitchAtOnceChangeItOnce(String backEnd) throws Exception {
        try (Replicas db = new Replicas(backEnd)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Boolean>> moves = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    KnowledgeBase kb = i % 2 == 0 ? db.r1 : db.r2;
                    Callable<Boolean> move = () -> {
                        go.await();
                        return kb.operatorSwitches().holdOut("flight-a", true, "olga");
                    };
                    moves.add(pool.submit(move));
                }
                go.countDown();
                int changed = 0;
                for (Future<Boolean> f : moves) changed += f.get() ? 1 : 0;
                assertEquals(1, changed, "one of them took it out, the others found it out");
                assertEquals(1, db.r1.operatorSwitches().version());
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
