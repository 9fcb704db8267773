package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database goes away under a live KnowledgeBase: calls fail fast with UNAVAILABLE, and the
 * same object works again once the server is back (same port and data directory). Also the
 * credential paths against a real server.
 */
@Tag("e2e")
class MariaDbOutageTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();

    /** Only bounds a hang: how fast a call fails is the pool's connection timeout, checked by its message. */
    private static final Duration HANG = Duration.ofSeconds(120);

    private static Plan plan(String impl, String reason) {
        return new Plan(0, null, Map.of(new Plan.Key("gold", KnowledgeBaseContract.FLIGHT),
                List.of(new Plan.Share(Implementation.single(impl), 1))), Map.of(), 0.5, "test", 1, List.of(), reason);
    }

    /**
     * Runs a call that must fail with UNAVAILABLE, given up by the pool after its connection
     * timeout (not by a driver's or the operating system's much longer one), without leaking
     * the password.
     */
    private static void assertFailsFast(Runnable call) {
        KnowledgeBaseException e = assertTimeoutPreemptively(HANG, () -> assertThrows(KnowledgeBaseException.class, call::run));
        assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, e.kind(), e.getMessage());
        // the pool's own give-up after its connection timeout (Mdal.CONNECTION_TIMEOUT_MS), not a hang cut short
        assertTrue(e.getMessage().contains("Connection is not available, request timed out after"), e.getMessage());
        assertFalse(e.getMessage().contains(MARIADB.password()), e.getMessage());
    }

    private static void awaitAvailable(KnowledgeBase kb) {
        long deadline = System.nanoTime() + HANG.toNanos();
        while (!kb.isAvailable()) assertTrue(System.nanoTime() < deadline, "no connection " + HANG.toSeconds() + " s after the restart");
    }

    /** A test that failed during an outage must not leave the next ones without a server. */
    @AfterEach
    void serverRuns() throws Exception {
        if (!MARIADB.isRunning()) MARIADB.start();
    }

    @Test
    void failsFastWhileTheServerIsDownAndReconnectsByItself() throws Exception {
        String url = MARIADB.createDatabase();
        try (KnowledgeBase kb = Mdal.open(url, MARIADB.credentials())) {
            kb.addServiceClass(KnowledgeBaseContract.gold());
            kb.addConcreteService(KnowledgeBaseContract.service("flight-a", KnowledgeBaseContract.FLIGHT));
            kb.addConcreteService(KnowledgeBaseContract.service("flight-b", KnowledgeBaseContract.FLIGHT));
            assertEquals(1, kb.publish(plan("flight-a", "before the outage")).version());

            // an orderly shutdown
            MARIADB.stop();
            assertFailsFast(kb::latestPlanVersion);
            assertFailsFast(() -> kb.publish(plan("flight-b", "during the outage")));
            assertFailsFast(() -> kb.putServiceClass(new ServiceClass("silver", 3, 0.9, 5, 5)));
            assertFalse(kb.isAvailable());

            MARIADB.start();
            // reconnects by itself; on a busy machine a first connection may take longer than the
            // pool's 2 s timeout, so poll (the deadline bounds a hang)
            awaitAvailable(kb);
            assertEquals(1, kb.latestPlanVersion(), "the first call after the restart works");
            Plan after = kb.publish(plan("flight-b", "after the restart"));
            assertEquals(2, after.version(), "nothing was half-written during the outage");
            assertEquals(after, kb.latestPlan().orElseThrow());

            // a crash (SIGKILL) while connections are in use
            kb.latestPlanVersion();
            MARIADB.kill();
            assertFailsFast(kb::latestPlanVersion);
            MARIADB.start();
            awaitAvailable(kb);
            assertEquals(2, kb.latestPlanVersion());
            assertEquals(3, kb.publish(plan("flight-a", "after the crash")).version());
            assertEquals("after the crash", kb.latestPlan().orElseThrow().reason());
        }
    }

    @Test
    void openingWhileTheServerIsDownFailsFast() throws Exception {
        String url = MARIADB.createDatabase();
        MARIADB.stop();
        try {
            KnowledgeBaseException e = assertTimeoutPreemptively(HANG,
                    () -> assertThrows(KnowledgeBaseException.class, () -> Mdal.open(url, MARIADB.credentials())));
            assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, e.kind(), e.getMessage());
        } finally {
            MARIADB.start();
        }
        try (KnowledgeBase kb = Mdal.open(url, MARIADB.credentials())) {
            assertEquals(0, kb.latestPlanVersion());
        }
    }

    @Test
    void wrongCredentialsAreRefusedWithoutEchoingThePassword() throws Exception {
        String url = MARIADB.createDatabase();
        String wrong = "not-the-password-8237";
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class,
                () -> Mdal.open(url, Credentials.of(MariaDbServer.USER, wrong)));
        assertEquals(KnowledgeBaseException.Kind.INVALID, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("credentials"), e.getMessage());
        assertFalse(e.getMessage().contains(wrong), e.getMessage());
    }

    @Test
    void credentialsMayComeFromTheUrlOrTheEnvironment() throws Exception {
        String url = MARIADB.createDatabase();
        String withCredentials = url + "?user=" + MariaDbServer.USER + "&password=" + MARIADB.password();
        try (KnowledgeBase kb = Mdal.open(withCredentials, Credentials.of("ignored", "ignored"))) {
            kb.addServiceClass(KnowledgeBaseContract.gold());
            assertFalse(kb.description().contains(MARIADB.password()), kb.description());
            assertFalse(kb.toString().contains(MARIADB.password()));
        }
        // user:password@host, and nothing logged carries the password
        String userInfo = url.replace("//127.0.0.1", "//" + MariaDbServer.USER + ":" + MARIADB.password() + "@127.0.0.1");
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true));
        try (KnowledgeBase kb = Mdal.open(userInfo, Credentials.NONE)) {
            assertEquals(1, kb.serviceClasses().size());
        } finally {
            System.setErr(err);
        }
        String log = captured.toString();
        assertTrue(log.contains("knowledge base opened"), "slf4j-simple logs to System.err: " + log);
        assertFalse(log.contains(MARIADB.password()), log);
        Credentials env = Credentials.fromEnvironment(Map.of(Credentials.ENV_USER, MariaDbServer.USER,
                Credentials.ENV_PASSWORD, MARIADB.password()));
        try (KnowledgeBase kb = Mdal.open(url.replace("jdbc:mariadb:", "jdbc:mysql:"), env)) {
            assertEquals(List.of("gold"), kb.serviceClasses().stream().map(ServiceClass::name).toList());
        }
    }
}
