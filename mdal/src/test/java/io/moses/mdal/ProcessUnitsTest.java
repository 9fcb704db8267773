package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The cluster's deployment units and the replicas' states of them (V4), on in-memory H2 and on MariaDB. */
@Tag("e2e")
class ProcessUnitsTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();

    static Stream<String> backEnds() {
        return Stream.of("h2", "mariadb");
    }

    static KnowledgeBase open(String backEnd) throws Exception {
        return backEnd.equals("h2")
                ? Mdal.open("mem:units" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)
                : Mdal.open(MARIADB.createDatabase(), MARIADB.credentials());
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void everyChangeTakesTheNextVersionAndAnUndeployStaysAsATombstone(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            ProcessUnits units = kb.processUnits();
            assertEquals(0, units.version());
            byte[] v1 = new byte[300_000]; // larger than a MariaDB BLOB (64 KiB)
            v1[299_999] = 7;
            ProcessUnit a = units.store("quote", v1, "r1");
            assertEquals(1, a.version());
            assertEquals(300_000, a.bytes());
            assertFalse(a.deleted());
            assertEquals(2, units.store("echo", new byte[] {1}, "r2").version());
            ProcessUnit a2 = units.store("quote", new byte[] {2, 3}, "r2");
            assertEquals(3, a2.version());
            assertEquals(3, units.version());
            assertArrayEquals(new byte[] {2, 3}, units.bundle("quote", 3).orElseThrow());
            assertTrue(units.bundle("quote", 1).isEmpty(), "an older version is gone");
            ProcessUnit gone = units.store("quote", null, "r1");
            assertEquals(4, gone.version());
            assertTrue(gone.deleted());
            assertEquals(4, units.version(), "the polled number never goes back");
            assertTrue(units.bundle("quote", 4).isEmpty());
            assertEquals(List.of("echo", "quote"), units.units().stream().map(ProcessUnit::name).toList());
            assertTrue(units.unit("quote").orElseThrow().deleted());
            assertEquals("r1", units.unit("quote").orElseThrow().changedBy());
            // deployed again under the same name
            assertEquals(5, units.store("quote", v1, "r1").version());
            assertArrayEquals(v1, units.bundle("quote", 5).orElseThrow());
            assertThrows(KnowledgeBaseException.class, () -> units.store("", new byte[] {1}, "r1"));
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void concurrentChangesGetDistinctVersions(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<ProcessUnit>> stored = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String name = "u" + (i % 5);
                    stored.add(pool.submit(() -> kb.processUnits().store(name, new byte[] {1}, "r")));
                }
                Set<Long> versions = new TreeSet<>();
                for (Future<ProcessUnit> f : stored) versions.add(f.get().version());
                assertEquals(20, versions.size(), "one version per change: " + stored.stream().map(f -> { try { return f.get().name() + "@" + f.get().version(); } catch (Exception e) { return e.toString(); } }).toList());
                assertEquals(20, kb.processUnits().version());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void eachReplicaRecordsTheVersionItAppliedOrItsError(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            ProcessUnits units = kb.processUnits();
            units.recordApplied("r1", "quote", 1, null);
            units.recordApplied("r2", "quote", 1, "x".repeat(5000));
            units.recordApplied("r1", "quote", 2, null);
            List<ProcessUnitState> states = units.states();
            assertEquals(2, states.size());
            assertEquals("r1", states.get(0).replica());
            assertEquals(2, states.get(0).version());
            assertNull(states.get(0).error());
            assertTrue(states.get(1).failed());
            assertEquals(2000, states.get(1).error().length(), "a long error is cut");
            units.forgetReplica("r2");
            assertEquals(List.of("r1"), units.states().stream().map(ProcessUnitState::replica).toList());
        }
    }
}
