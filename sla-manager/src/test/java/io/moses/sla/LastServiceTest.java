package io.moses.sla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The only concrete service of a task cannot be removed, whether or not the plan in force uses
 * it (no plan yet, the optimizer off, a plan made before it was added): before, the check ran
 * only when the plan used the service, so such a service was removed and the next plan failed.
 */
class LastServiceTest {
    static final TaskRef PAY = new TaskRef("Shop", "pay.charge");
    KnowledgeBase kb;

    /** No plan in force; a re-plan leaves it so (the optimizer is off). */
    static final Planning NO_PLAN = new Planning() {
        @Override public PlanningInput input() { throw new AssertionError("removal needs no admission"); }
        @Override public Replanned replan(String why, Set<String> without) { return new Replanned(false, null, "optimizer off"); }
        @Override public Plan current() { return null; }
    };

    @BeforeEach
    void open() {
        kb = Mdal.open("mem:", Credentials.NONE);
        kb.putCompositeService(new CompositeService("Shop", "urn:shop", List.of(PAY), new Activity.Invoke("/pay", PAY)));
        kb.addConcreteService(service("pay-a"));
    }

    @AfterEach
    void close() {
        kb.close();
    }

    static ConcreteService service(String name) {
        return new ConcreteService(name, PAY, URI.create("http://127.0.0.1:9/" + name), new ProviderSla(0.1, 0.999, 1, 10),
                PayloadMapping.IDENTITY);
    }

    @Test
    void theOnlyServiceOfATaskStaysWhenThePlanDoesNotUseIt() {
        SlaException e = assertThrows(SlaException.class, () -> new ServiceManager(kb, NO_PLAN).remove("pay-a"));
        assertEquals(SlaException.Code.LAST_SERVICE, e.code());
        assertTrue(e.getMessage().contains("'pay-a' is the only concrete service of " + PAY), e.getMessage());
        assertEquals(1, kb.concreteServices(PAY).size(), "nothing was removed");
    }

    @Test
    void oneOfTwoServicesCanBeRemovedAndThenTheOtherStays() {
        kb.addConcreteService(service("pay-b"));
        ServiceManager services = new ServiceManager(kb, NO_PLAN);
        services.remove("pay-b");
        assertEquals(List.of("pay-a"), kb.concreteServices(PAY).stream().map(ConcreteService::name).toList());
        assertEquals(SlaException.Code.LAST_SERVICE, assertThrows(SlaException.class, () -> services.remove("pay-a")).code());
    }

    /** With the other services of its task taken out by an operator, the one left in is the last one too. */
    @Test
    void theOnlyServiceOfATaskThatIsInStays() {
        kb.addConcreteService(service("pay-b"));
        kb.operatorSwitches().holdOut("pay-a", true, "olga");
        ServiceManager services = new ServiceManager(kb, NO_PLAN);
        SlaException e = assertThrows(SlaException.class, () -> services.remove("pay-b"));
        assertEquals(SlaException.Code.LAST_SERVICE, e.code());
        assertTrue(e.getMessage().contains("'pay-b' is the only concrete service of " + PAY + " that is in"), e.getMessage());
        assertEquals(2, kb.concreteServices(PAY).size(), "nothing was removed");
        kb.operatorSwitches().holdOut("pay-a", false, "olga");
        services.remove("pay-b");
        assertEquals(List.of("pay-a"), kb.concreteServices(PAY).stream().map(ConcreteService::name).toList());
    }
}
