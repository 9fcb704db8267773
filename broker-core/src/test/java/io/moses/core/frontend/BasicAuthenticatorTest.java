package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.User;
import io.moses.model.auth.LoginThrottle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Requests that bring the same credentials while their slow hash runs share its answer. */
class BasicAuthenticatorTest {
    static final User ALICE = new User("alice", "gold", 1.0, "stored-hash");

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** A verifier that holds its first check until released, and counts the checks. */
    static final class SlowVerifier {
        final AtomicInteger checks = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        boolean verify(char[] password, String hash) {
            checks.incrementAndGet();
            entered.countDown();
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return new String(password).equals("alice-demo") && hash.equals("stored-hash");
        }
    }

    /** Starts the first login, waits until its hash runs, then the others, and until each waits for the first. */
    static List<Future<User>> burst(ExecutorService pool, BasicAuthenticator auth, SlowVerifier verifier, String header, int n)
            throws Exception {
        List<Future<User>> answers = new ArrayList<>();
        answers.add(pool.submit(() -> auth.userOf(header)));
        assertTrue(verifier.entered.await(30, TimeUnit.SECONDS), "the first login's hash runs");
        List<Thread> waiting = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(n - 1);
        for (int i = 1; i < n; i++)
            answers.add(pool.submit(() -> {
                synchronized (waiting) {
                    waiting.add(Thread.currentThread());
                }
                started.countDown();
                return auth.userOf(header);
            }));
        assertTrue(started.await(30, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // bounds a hang only
        while (waiting.stream().anyMatch(t -> t.getState() != Thread.State.WAITING) && System.nanoTime() < deadline)
            Thread.onSpinWait();
        return answers;
    }

    @Test
    void aBurstOfFirstLoginsWithOnePasswordCostsOneHash() throws Exception {
        SlowVerifier verifier = new SlowVerifier();
        BasicAuthenticator auth = new BasicAuthenticator(name -> name.equals("alice") ? ALICE : null, verifier::verify, false,
                new LoginThrottle(1, Duration.ofMillis(1), System::nanoTime));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<User>> answers = burst(pool, auth, verifier, basic("alice", "alice-demo"), 8);
            verifier.release.countDown();
            // with one hashing place and 1 ms to get it, any of the seven that hashed itself would be refused as busy
            for (Future<User> a : answers) assertEquals(ALICE, a.get(30, TimeUnit.SECONDS));
            assertEquals(1, verifier.checks.get());
            assertEquals(ALICE, auth.userOf(basic("alice", "alice-demo")), "known from memory after");
            assertEquals(1, verifier.checks.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBurstWithAWrongPasswordIsRefusedOnceAndAnotherPasswordIsCheckedOnItsOwn() throws Exception {
        SlowVerifier verifier = new SlowVerifier();
        BasicAuthenticator auth = new BasicAuthenticator(name -> name.equals("alice") ? ALICE : null, verifier::verify, false,
                new LoginThrottle(2, Duration.ofSeconds(10), System::nanoTime));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<User>> answers = burst(pool, auth, verifier, basic("alice", "guess"), 6);
            // the right password is not the guess's: it is checked, not given the guess's answer
            Future<User> right = pool.submit(() -> auth.userOf(basic("alice", "alice-demo")));
            verifier.release.countDown();
            for (Future<User> a : answers) {
                var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> a.get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof AuthenticationException, e.toString());
                assertEquals("unknown user or wrong password", e.getCause().getMessage());
            }
            assertEquals(ALICE, right.get(30, TimeUnit.SECONDS));
            assertEquals(2, verifier.checks.get(), "one hash for the six guesses, one for the right password");
        } finally {
            pool.shutdownNow();
        }
    }
}
