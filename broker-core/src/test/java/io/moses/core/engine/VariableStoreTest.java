package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VariableStoreTest {
    @Test
    void theBrokersVariableStoreShadowsOdes() {
        // broker-core's org.apache.ode.bpel.memdao.XmlDataDaoImpl must come before ode-bpel-runtime's
        // on the class path, or every variable write is copied again (see BpelEngine.start's warning).
        assertTrue(BpelEngine.ownVariableStore(), "ODE's XmlDataDaoImpl was loaded instead of the broker's");
    }
}
