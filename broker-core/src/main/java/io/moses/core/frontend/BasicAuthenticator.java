package io.moses.core.frontend;

import io.moses.model.User;
import io.moses.model.auth.BasicCredentials;
import io.moses.model.auth.LoginThrottle;
import jakarta.xml.ws.handler.MessageContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * HTTP Basic authentication of composite requests against the users of the knowledge base
 * (their passwords stored as salted hashes). The slow hash is checked once per user and
 * password; after that a keyed digest in memory answers, so authentication costs the request
 * path microseconds, not the hash's deliberate tens of milliseconds. A changed password hash
 * invalidates the memory. Every other login goes through the {@link LoginThrottle}: after a few
 * failures for a name its attempts are refused at once, and the hashes run a few at a time.
 * Requests that bring the same name and password while their hash runs wait for its answer: a
 * client's burst of first requests costs one hash, not one each, and does not fill the hashing
 * places (a hash takes seconds on a loaded machine before the JIT has compiled it).
 */
public final class BasicAuthenticator implements Authenticator {
    private final Function<String, User> users;
    private final BiPredicate<char[], String> verifier;
    private final boolean anonymousAllowed;
    private final io.moses.core.engine.CallNumbers calls;
    private final LoginThrottle throttle;
    private final byte[] key = new byte[32];
    private final Map<String, Verified> verified = new ConcurrentHashMap<>();
    /** The checks running now, by name and the password's keyed digest. */
    private final Map<String, CompletableFuture<Boolean>> checking = new ConcurrentHashMap<>();

    private record Verified(String storedHash, byte[] digest) {}

    /**
     * @param users            looks a user up by name (from memory), null if unknown
     * @param verifier         checks a password against a stored hash
     * @param anonymousAllowed whether a request without credentials is served (with no class)
     */
    public BasicAuthenticator(Function<String, User> users, BiPredicate<char[], String> verifier, boolean anonymousAllowed) {
        this(users, verifier, anonymousAllowed, LoginThrottle.defaults());
    }

    /** @param throttle slows guessing down; shared with the other ways in (the management services) */
    public BasicAuthenticator(Function<String, User> users, BiPredicate<char[], String> verifier, boolean anonymousAllowed,
                              LoginThrottle throttle) {
        this(users, verifier, anonymousAllowed, throttle, null);
    }

    /** @param calls the asynchronous calls' numbers, which are their callbacks' credentials; null: none are */
    public BasicAuthenticator(Function<String, User> users, BiPredicate<char[], String> verifier, boolean anonymousAllowed,
                              LoginThrottle throttle, io.moses.core.engine.CallNumbers calls) {
        this.calls = calls;
        this.users = users;
        this.verifier = verifier;
        this.anonymousAllowed = anonymousAllowed;
        this.throttle = throttle;
        new SecureRandom().nextBytes(key);
    }

    @Override
    public String serviceClassOf(MessageContext request) {
        User user = callerOf(request);
        return user == null ? null : user.serviceClass();
    }

    @Override
    public User callerOf(MessageContext request) {
        return userOf(header(request, "Authorization"));
    }

    @Override
    public User userOfCall(String composite, String call) {
        String name = calls == null || call == null ? null : calls.userOf(composite, call);
        return name == null ? null : users.apply(name);
    }

    @Override
    public User userOf(String header) {
        if (header == null) {
            if (anonymousAllowed) return null;
            throw new AuthenticationException("authentication required: send HTTP Basic credentials of a registered user");
        }
        BasicCredentials credentials;
        try {
            credentials = BasicCredentials.parse(header);
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException(e.getMessage());
        }
        String name = credentials.user();
        String password = credentials.password();
        User user = users.apply(name);
        // one message for both cases: do not tell a stranger which user names exist
        if (!check(name, user, password)) throw new AuthenticationException("unknown user or wrong password");
        return user;
    }

    private boolean check(String name, User user, String password) {
        boolean known = user != null && user.passwordHash() != null;
        byte[] digest = digest(name, password);
        Verified v = known ? verified.get(name) : null;
        if (v != null && v.storedHash().equals(user.passwordHash()) && MessageDigest.isEqual(v.digest(), digest)) return true;
        String attempt = name + '\0' + Base64.getEncoder().encodeToString(digest);
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> running = checking.putIfAbsent(attempt, mine);
        if (running != null) return answerOf(running);
        try {
            // an unknown name counts its failures as a known one does, so that guessing names pays the same
            boolean ok = throttle.check(name, () -> known && verifier.test(password.toCharArray(), user.passwordHash()));
            if (ok) {
                if (verified.size() > 100_000) verified.clear();
                verified.put(user.name(), new Verified(user.passwordHash(), digest));
            }
            mine.complete(ok);
            return ok;
        } catch (LoginThrottle.Refused e) {
            mine.completeExceptionally(e);
            throw new AuthenticationException(e.getMessage());
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            checking.remove(attempt, mine);
        }
    }

    /** The answer of the same credentials' check another request runs. */
    private static boolean answerOf(CompletableFuture<Boolean> running) {
        try {
            return running.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof LoginThrottle.Refused r) throw new AuthenticationException(r.getMessage());
            throw new AuthenticationException("the password could not be checked: " + e.getCause().getMessage());
        }
    }

    private byte[] digest(String user, String password) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(key);
            md.update(user.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            md.update(password.getBytes(StandardCharsets.UTF_8));
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static String header(MessageContext mc, String name) {
        Map<String, List<String>> headers = (Map<String, List<String>>) mc.get(MessageContext.HTTP_REQUEST_HEADERS);
        if (headers == null) return null;
        for (var e : headers.entrySet())
            if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) return e.getValue().get(0);
        return null;
    }
}
