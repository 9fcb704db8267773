package io.moses.core;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The conformance cases of {@link ConformanceEndToEndTest} (where they are durable), with the processes in memory. */
@Tag("e2e")
class ConformanceInMemoryEndToEndTest extends ConformanceEndToEndTest {
    /** Hides the durable start: the same tests, on an in-memory copy of the unit. */
    @BeforeAll
    static void start() throws Exception {
        start(InMemoryUnits.copy(Path.of("src/test/resources/processes/conformance"), work.resolve("in-memory")), "mem:conformance-in-memory");
    }
}
