package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-node URLs MDAL opens its connections on (from a multi-host URL), and how a node that lost the primary component is reported. */
class GaleraNodesTest {
    @Test
    void eachHostGetsTheDatabaseAndTheParameters() {
        assertEquals(List.of("jdbc:mysql://h1:3306/moses?connectTimeout=2000&a=b", "jdbc:mysql://h2:3307/moses?connectTimeout=2000&a=b",
                        "jdbc:mysql://h3/moses?connectTimeout=2000&a=b"),
                GaleraNodes.nodeUrls("jdbc:mysql://h1:3306,h2:3307,h3/moses?connectTimeout=2000&a=b"));
        assertEquals(List.of("jdbc:mysql://h1?x=1", "jdbc:mysql://h2?x=1"), GaleraNodes.nodeUrls("jdbc:mysql://h1,h2?x=1"));
        assertEquals(List.of("jdbc:mysql://h1", "jdbc:mysql://h2"), GaleraNodes.nodeUrls("jdbc:mysql://h1,h2"));
    }

    @Test
    void credentialsBeforeTheFirstHostApplyToEveryHost() {
        assertEquals(List.of("jdbc:mysql://u:p@h1:1/db", "jdbc:mysql://u:p@h2:2/db"), GaleraNodes.nodeUrls("jdbc:mysql://u:p@h1:1,h2:2/db"));
        assertEquals("h2:2", GaleraNodes.host("jdbc:mysql://u:p@h2:2/db"));
    }

    @Test
    void bracketedHostsAreNotSplitInside() {
        assertEquals(List.of("jdbc:mysql://address=(host=a)(port=1)/db", "jdbc:mysql://[::1]:3306/db"),
                GaleraNodes.nodeUrls("jdbc:mysql://address=(host=a)(port=1),[::1]:3306/db"));
    }

    @Test
    void aWriteThatLostThePrimaryComponentIsUnavailableNotAnInternalError() {
        java.sql.SQLException lost = new java.sql.SQLException("Error while appending streaming replication fragment"
                + "(provider status: Not connected to Primary Component)", "HY000", 1180);
        assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, SqlErrors.translate("acquire lease 'optimizer'", "db", lost).kind());
        assertEquals(KnowledgeBaseException.Kind.INTERNAL,
                SqlErrors.translate("x", "db", new java.sql.SQLException("Got error 5 during COMMIT", "HY000", 1180)).kind());
    }

    @Test
    void aUrlWithoutHostsIsRefused() {
        assertEquals(KnowledgeBaseException.Kind.INVALID, assertThrows(KnowledgeBaseException.class, () -> GaleraNodes.nodeUrls("jdbc:mysql:///db")).kind());
    }
}
