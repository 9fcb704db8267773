package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A knowledge base migrated before a lower-numbered migration existed (V5 arrived after V6 had
 * been applied) opens, and the late migration is applied, instead of failing validation.
 */
class LateMigrationTest {
    @Test
    void aDatabasePastAMigrationAppliesItLate() throws Exception {
        String spec = "mem:late" + UUID.randomUUID().toString().replace("-", "");
        try (KnowledgeBase kb = Mdal.open(spec, Credentials.NONE);
             Connection c = DriverManager.getConnection("jdbc:h2:" + spec, "sa", "");
             Statement s = c.createStatement()) {
            // what a database migrated by a build without V5 looks like
            s.executeUpdate("DROP TABLE console_session");
            s.executeUpdate("DROP TABLE operator_switch");
            s.executeUpdate("DROP TABLE operator_state_version");
            s.executeUpdate("DELETE FROM \"flyway_schema_history\" WHERE \"version\" = '5'");
            try (KnowledgeBase again = Mdal.open(spec, Credentials.NONE)) {
                assertEquals(0, again.operatorSwitches().version(), "V5 applied");
                assertEquals(0, again.operatorSessions().count());
            }
        }
    }
}
