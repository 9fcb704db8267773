package io.moses.core;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Every conversation shape of {@link ConversationEndToEndTest} (where they are durable), with the processes in memory. */
@Tag("e2e")
class ConversationInMemoryEndToEndTest extends ConversationEndToEndTest {
    /** Hides the durable start: the same tests, on an in-memory copy of the unit. */
    @BeforeAll
    static void start() throws Exception {
        start(InMemoryUnits.copy(UNITS, work.resolve("in-memory")), "mem:conversations-in-memory");
    }
}
