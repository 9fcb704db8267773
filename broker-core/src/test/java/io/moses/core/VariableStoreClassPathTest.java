package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker replaces ODE's in-memory variable store by a class of the same name, which wins
 * only when broker-core precedes ODE's jar on the class path. A broker started with the order
 * reversed must refuse to start and say why, not run the slow store quietly.
 */
@Tag("e2e")
class VariableStoreClassPathTest {
    @TempDir Path work;

    @Test
    void aBrokerWithOdesVariableStoreFirstOnTheClassPathRefusesToStart() throws Exception {
        List<String> entries = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        String ode = entries.stream().filter(e -> e.contains("ode-bpel-runtime")).findFirst()
                .orElseThrow(() -> new AssertionError("no ode-bpel-runtime jar on the test class path"));
        entries.remove(ode);
        entries.add(0, ode);
        try (ChildProcess broker = new ChildProcess("io.moses.core.Main",
                List.of("--port", "0", "--work", work.toString(), "--db", "mem:order"), Map.of(), String.join(File.pathSeparator, entries))) {
            assertTrue(broker.process.waitFor(120, TimeUnit.SECONDS), "the broker kept running: " + broker.output());
            String out = broker.finalOutput();
            assertEquals(1, broker.process.exitValue(), out);
            assertTrue(out.contains("put broker-core before ODE's jars on the class path"), out);
            assertFalse(out.contains("broker listening"), out);
        }
    }
}
