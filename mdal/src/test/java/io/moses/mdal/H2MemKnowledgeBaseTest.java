package io.moses.mdal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/** The contract on in-memory H2 (the default for tests and {@code ./moses demo}). */
class H2MemKnowledgeBaseTest extends KnowledgeBaseContract {
    @Override
    protected String newDatabase() {
        return "mem:kb" + UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    protected Credentials credentials() {
        return Credentials.NONE;
    }

    @Override
    protected Connection rawConnection(String spec) throws SQLException {
        return DriverManager.getConnection("jdbc:h2:" + spec, "sa", "");
    }
}
