package io.moses.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The clients are not the broker: this module's class path (the one ./moses runs them on) has none of its engines. */
class CommandLineClassPathTest {

    @Test
    void neitherOdeNorCamelNorTheBrokerIsOnTheClassPath() {
        for (String broker : List.of("org.apache.ode.bpel.engine.BpelServerImpl", "org.apache.camel.CamelContext", "io.moses.core.Broker"))
            assertThrows(ClassNotFoundException.class, () -> Class.forName(broker), broker + " is on the command line's class path");
    }
}
