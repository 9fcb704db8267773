package io.moses.sla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Plan;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SLA Manager's refusals that need no optimizer: closed registration, malformed requests,
 * other users' subscriptions. The planning stand-in fails the test if a refused call reaches it.
 */
class SlaManagerTest {
    static final String HASH = PasswordHasher.hash("secret-password".toCharArray(), 1000);
    KnowledgeBase kb;

    /** Any use means the manager went on with a call it should have refused. */
    static final Planning UNREACHABLE = new Planning() {
        @Override public PlanningInput input() { throw new AssertionError("a refused call reached admission"); }
        @Override public Replanned replan(String why, Set<String> without) { throw new AssertionError("a refused call re-planned: " + why); }
        @Override public Plan current() { return null; }
    };

    @BeforeEach
    void open() {
        kb = Mdal.open("mem:", Credentials.NONE);
        kb.addServiceClass(new ServiceClass("gold", 1, 0.9, 10, 5));
        kb.addUser(new User("alice", "gold", 1, HASH));
        kb.addUser(new User("bob", "gold", 1, HASH));
        kb.addUser(new User("olga", "gold", 0, HASH, Role.OPERATOR));
    }

    @AfterEach
    void close() {
        kb.close();
    }

    SlaManager manager(SlaManager.Registration r) {
        return new SlaManager(kb, new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO), UNREACHABLE, r, java.time.Clock.systemUTC());
    }

    static SlaException.Code refusal(Runnable call) {
        return assertThrows(SlaException.class, call::run).code();
    }

    @Test
    void closedRegistrationLetsOnlyOperatorsSubscribe() {
        SlaManager m = manager(SlaManager.Registration.CLOSED);
        long before = kb.subscriptionsVersion();
        assertEquals(SlaException.Code.UNAUTHENTICATED, refusal(() -> m.subscribe(null, "carol", "carol-password", "gold", 1)));
        User alice = kb.user("alice").orElseThrow();
        assertEquals(SlaException.Code.FORBIDDEN, refusal(() -> m.subscribe(alice, "carol", "carol-password", "gold", 1)));
        // an operator gets past the gate (and then to admission, which the stand-in refuses to serve)
        User olga = kb.user("olga").orElseThrow();
        assertThrows(AssertionError.class, () -> m.subscribe(olga, "carol", "carol-password", "gold", 1));
        assertEquals(before, kb.subscriptionsVersion());
        assertTrue(kb.user("carol").isEmpty());
    }

    @Test
    void openRegistrationStopsAtItsCapButAnOperatorStillSubscribes() {
        SlaManager m = new SlaManager(kb, new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO), UNREACHABLE,
                SlaManager.Registration.OPEN, 3, java.time.Clock.systemUTC());
        SlaException full = assertThrows(SlaException.class, () -> m.subscribe(null, "carol", "carol-password", "gold", 0));
        assertEquals(SlaException.Code.FORBIDDEN, full.code());
        assertTrue(full.getMessage().contains("registration is full (3 users)"), full.getMessage());
        User alice = kb.user("alice").orElseThrow();
        assertEquals(SlaException.Code.FORBIDDEN, refusal(() -> m.subscribe(alice, "carol", "carol-password", "gold", 0)));
        // an operator gets past the cap (and then to admission, which the stand-in refuses to serve)
        assertThrows(AssertionError.class, () -> m.subscribe(kb.user("olga").orElseThrow(), "carol", "carol-password", "gold", 0));
        assertEquals(3, kb.users().size());
    }

    @Test
    void malformedRequestsAreRefusedBeforeAdmission() {
        SlaManager m = manager(SlaManager.Registration.OPEN);
        User alice = kb.user("alice").orElseThrow();
        assertEquals(SlaException.Code.INVALID, refusal(() -> m.subscribe(null, "carol", "short", "gold", 1)));
        assertEquals(SlaException.Code.INVALID, refusal(() -> m.subscribe(null, "", "carol-password", "gold", 1)));
        assertEquals(SlaException.Code.INVALID, refusal(() -> m.subscribe(null, "carol", "carol-password", "gold", Double.NaN)));
        assertEquals(SlaException.Code.INVALID, refusal(() -> m.subscribe(null, "carol", "carol-password", "gold", 2e6)));
        assertEquals(SlaException.Code.UNKNOWN_CLASS, refusal(() -> m.subscribe(null, "carol", "carol-password", "tin", 1)));
        assertEquals(SlaException.Code.DUPLICATE_USER, refusal(() -> m.subscribe(null, "bob", "carol-password", "gold", 1)));
        assertEquals(SlaException.Code.FORBIDDEN, refusal(() -> m.change(alice, "bob", null, 2.0)));
        assertEquals(SlaException.Code.FORBIDDEN, refusal(() -> m.cancel(alice, "bob")));
        assertEquals(SlaException.Code.UNAUTHENTICATED, refusal(() -> m.cancel(null, null)));
        assertEquals(SlaException.Code.INVALID, refusal(() -> m.change(alice, null, null, -1.0)));
        assertEquals(3, kb.users().size());
    }

    @Test
    void offersAreRoundedDownToThreeSignificantDigits() {
        assertEquals(0.984, SlaManager.roundDown(0.98449));
        assertEquals(12.3, SlaManager.roundDown(12.399));
        assertEquals(0, SlaManager.roundDown(-1));
        assertEquals(0, SlaManager.roundDown(Double.NaN));
    }
}
