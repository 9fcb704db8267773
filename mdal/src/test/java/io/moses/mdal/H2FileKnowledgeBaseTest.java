package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on embedded H2 in a file (single-machine use), plus persistence across restarts. */
class H2FileKnowledgeBaseTest extends KnowledgeBaseContract {
    @TempDir
    static Path dir;

    @Override
    protected String newDatabase() {
        return dir.resolve("kb-" + UUID.randomUUID()).resolve("moses").toString();
    }

    @Override
    protected Credentials credentials() {
        return Credentials.NONE;
    }

    @Override
    protected Connection rawConnection(String spec) throws SQLException {
        return DriverManager.getConnection("jdbc:h2:file:" + spec, "sa", "");
    }

    @Test
    void dataSurvivesClosingAndReopening() {
        seedBasics();
        long v = kb.publish(draft("persisted")).version();
        kb.close();
        assertTrue(Files.exists(Path.of(spec + ".mv.db")));
        kb = Mdal.open(spec + ".mv.db", Credentials.NONE); // the file name works too
        assertEquals(v, kb.latestPlanVersion());
        assertEquals("persisted", kb.latestPlan().orElseThrow().reason());
        assertEquals(3, kb.concreteServices().size());
    }
}
