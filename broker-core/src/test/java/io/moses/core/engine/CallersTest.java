package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.ProcessState;
import org.apache.ode.bpel.evt.NewProcessInstanceEvent;
import org.apache.ode.bpel.evt.ProcessInstanceStateChangeEvent;
import org.junit.jupiter.api.Test;

/** The instances each user has under way, from ODE's events as the engine sees them. */
class CallersTest {
    final Callers callers = new Callers();

    void started(String exchange, long instance, String user) {
        callers.register(exchange, "client-" + exchange, "gold", user);
        // ODE sets the exchange from its own package only
        callers.onEvent(new NewProcessInstanceEvent(new QName("urn:p", "P"), new QName("urn:p", "P-1"), instance) {
            @Override
            public String getMessageExchangeId() {
                return exchange;
            }
        });
        callers.release(exchange, false);
    }

    void ended(long instance, short state) {
        ProcessInstanceStateChangeEvent e = new ProcessInstanceStateChangeEvent();
        e.setProcessInstanceId(instance);
        e.setOldState(ProcessState.STATE_ACTIVE);
        e.setNewState(state);
        callers.onEvent(e);
    }

    @Test
    void eachUsersInstancesAreCountedUntilTheyEndHoweverTheyEnd() {
        started("m1", 1, "alice");
        started("m2", 2, "alice");
        started("m3", 3, "bob");
        started("m4", 4, null); // anonymous: nobody's
        assertEquals(2, callers.liveInstancesOf("alice"));
        assertEquals(1, callers.liveInstancesOf("bob"));
        ended(1, ProcessState.STATE_COMPLETED_OK);
        ended(1, ProcessState.STATE_COMPLETED_OK); // told twice: counted once
        assertEquals(1, callers.liveInstancesOf("alice"));
        ended(2, ProcessState.STATE_TERMINATED);
        ended(3, ProcessState.STATE_COMPLETED_WITH_FAULT);
        ended(4, ProcessState.STATE_COMPLETED_OK);
        assertEquals(0, callers.liveInstancesOf("alice"));
        assertEquals(0, callers.liveInstancesOf("bob"));
    }
}
