package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three in-place updates (service class, user, concrete service) share one lock-change-validate
 * step ({@link LockedChange}): the same refusals, in the same words, for each.
 */
class LockedChangeTest {
    static final TaskRef PAY = new TaskRef("Shop", "pay.charge");
    KnowledgeBase kb;

    @BeforeEach
    void open() {
        kb = Mdal.open("mem:", Credentials.NONE);
        kb.putCompositeService(new CompositeService("Shop", "urn:shop", List.of(PAY), new Activity.Invoke("/pay", PAY)));
        kb.addServiceClass(KnowledgeBaseContract.gold());
        kb.addUser(new User("alice", "gold", 1, PasswordHasher.hash("secret-password".toCharArray(), 1000)));
        kb.addConcreteService(KnowledgeBaseContract.service("pay-a", PAY));
    }

    @AfterEach
    void close() {
        kb.close();
    }

    @Test
    void anUnknownRecordIsNotFound() {
        refused(KnowledgeBaseException.Kind.NOT_FOUND, "serviceClass.name: no service class 'platinum'", () -> kb.updateServiceClass("platinum", k -> k));
        refused(KnowledgeBaseException.Kind.NOT_FOUND, "user.name: no user 'bob'", () -> kb.updateUser("bob", u -> u));
        refused(KnowledgeBaseException.Kind.NOT_FOUND, "concreteService.name: no concrete service 'pay-b'", () -> kb.updateConcreteService("pay-b", s -> s));
    }

    @Test
    void aNameCannotChangeAndNothingIsWritten() {
        refused(KnowledgeBaseException.Kind.INVALID, "update service class 'gold': serviceClass.name cannot change",
                () -> kb.updateServiceClass("gold", k -> new ServiceClass("silver", k.maxResponseTime(), k.minAvailability(), k.maxCost(), k.price())));
        refused(KnowledgeBaseException.Kind.INVALID, "update user 'alice': user.name cannot change",
                () -> kb.updateUser("alice", u -> new User("bob", u.serviceClass(), u.rate(), u.passwordHash())));
        refused(KnowledgeBaseException.Kind.INVALID, "update concrete service 'pay-a': concreteService.name cannot change",
                () -> kb.updateConcreteService("pay-a", s -> new ConcreteService("pay-b", s.task(), s.endpoint(), s.sla(), s.mapping())));
        refused(KnowledgeBaseException.Kind.INVALID, "update user 'alice': the change returned null", () -> kb.updateUser("alice", u -> null));
        assertEquals(List.of("gold"), kb.serviceClasses().stream().map(ServiceClass::name).toList());
        assertEquals(List.of("alice"), kb.users().stream().map(User::name).toList());
        assertEquals(List.of("pay-a"), kb.concreteServices().stream().map(ConcreteService::name).toList());
    }

    @Test
    void aValidChangeIsWritten() {
        assertEquals(2.0, kb.updateUser("alice", u -> new User(u.name(), u.serviceClass(), 2, u.passwordHash())).rate());
        assertEquals(2.0, kb.user("alice").orElseThrow().rate());
    }

    private static void refused(KnowledgeBaseException.Kind kind, String message, Executable call) {
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, call::run);
        assertEquals(kind, e.kind());
        assertEquals(message, e.getMessage());
    }

    interface Executable {
        void run();
    }
}
