package org.apache.ode.bpel.memdao;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.List;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.CorrelationKey;
import org.apache.ode.bpel.common.ProcessState;
import org.apache.ode.bpel.dao.ProcessDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.Scheduler;
import org.junit.jupiter.api.Test;

public class InMemoryProcessesTest {
    /** A scheduler whose transactions complete at once: ODE's in-memory DAO registers new instances on completion. */
    public static Scheduler committingAtOnce() {
        return (Scheduler) Proxy.newProxyInstance(Scheduler.class.getClassLoader(), new Class<?>[] {Scheduler.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("registerSynchronizer")) {
                        Scheduler.Synchronizer s = (Scheduler.Synchronizer) args[0];
                        s.beforeCompletion();
                        s.afterCompletion(true);
                    }
                    return null;
                });
    }

    static ProcessInstanceDAO instance(ProcessDAO process, short state, String caseId) {
        ProcessInstanceDAO i = process.createInstance(null);
        i.setState(state);
        var scope = i.createScope(null, "case", 1);
        scope.getCorrelationSet("unset"); // a set the instance has not initiated yet: no value
        if (caseId != null) scope.getCorrelationSet("byCase").setValue(null, new CorrelationKey("byCase", new String[] {caseId}));
        return i;
    }

    @Test
    void findsTheActiveInstancesCorrelatedByAKey() {
        ProcessDAO process = new InMemoryProcesses(committingAtOnce()).getConnection()
                .createProcess(new QName("urn:t", "P-1"), new QName("urn:t", "P"), "guid", 1);
        ProcessInstanceDAO seven = instance(process, ProcessState.STATE_ACTIVE, "7");
        instance(process, ProcessState.STATE_ACTIVE, "8");
        instance(process, ProcessState.STATE_COMPLETED_OK, "7");
        instance(process, ProcessState.STATE_ACTIVE, null);
        CorrelationKey key = new CorrelationKey("byCase", new String[] {"7"});

        assertEquals(List.of(seven), List.copyOf(process.findInstance(key, ProcessState.STATE_ACTIVE)));
        assertEquals(List.of(), List.copyOf(process.findInstance(new CorrelationKey("byCase", new String[] {"9"}), ProcessState.STATE_ACTIVE)),
                "no instance has the key: an empty collection (ODE's in-memory DAO answers null)");
        assertEquals(1, process.findInstance(key, ProcessState.STATE_COMPLETED_OK).size());
    }
}
