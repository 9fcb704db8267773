package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.User;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.xml.ws.handler.MessageContext;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A conversation message another replica forwarded passes unpoliced only with a seal that is
 * recent on the broker's wall clock, the one the filter is given (here stopped), not the system's.
 */
class PolicingFilterTest {
    static final Instant WALL = Instant.parse("2026-01-01T00:00:00Z");
    static final String CARL = "Basic Y2FybDpjYXJsLXNlY3JldA==";
    final HopSeal hops = new HopSeal(HopSealTest.KEY, "r1");
    final RatePolicing policing = new RatePolicing(new RatePolicy(RatePolicy.OverRate.REJECT, 2), null, false, Clock.fixed(WALL, ZoneOffset.UTC),
            System::nanoTime);
    final PolicingFilter filter = new PolicingFilter(Clock.fixed(WALL, ZoneOffset.UTC));

    PolicingFilterTest() {
        filter.police(policing, new Authenticator() {
            @Override
            public String serviceClassOf(MessageContext request) {
                return "bronze";
            }

            @Override
            public User userOf(String authorizationHeader) {
                return new User("carl", "bronze", 100, "hash");
            }
        });
        filter.trustHops(hops);
    }

    /** Whether a composite request forwarded by replica r2 with {@code seal} was policed; it passes on either way. */
    boolean policed(String seal) throws Exception {
        Map<String, String> headers = Map.of(ConversationForwarding.HOP_HEADER, "r2", HopSeal.HEADER, seal, "Authorization", CARL);
        HttpServletRequest request = (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getMethod" -> "POST";
                    case "getRequestURI" -> HopSealTest.PATH;
                    case "getHeader" -> headers.get((String) args[0]);
                    default -> null;
                });
        long before = policing.user("carl") == null ? 0 : policing.user("carl").conforming();
        AtomicBoolean passed = new AtomicBoolean();
        filter.doFilter(request, null, (req, res) -> passed.set(true));
        assertTrue(passed.get(), "passed on");
        return policing.user("carl") != null && policing.user("carl").conforming() > before;
    }

    /** r2's seal on carl's message (no body: the proxy has no WholeBodies attribute) to r1, at {@code at}. */
    String seal(long at) {
        return new HopSeal(HopSealTest.KEY, "r2").seal(new HopSeal.Hop("r2", "r1", "POST", HopSealTest.PATH, null, CARL), at);
    }

    @Test
    void aSealIsJudgedOnTheBrokersClock() throws Exception {
        assertFalse(policed(seal(WALL.toEpochMilli())), "sealed now on the broker's clock: not policed again");
        assertTrue(policed(seal(WALL.toEpochMilli() - HopSeal.MAX_AGE_MILLIS - 1)),
                "sealed longer ago on the broker's clock than a seal holds: policed");
        assertTrue(policed(seal(System.currentTimeMillis())), "sealed now on the system's clock, far from the broker's: policed");
    }
}
