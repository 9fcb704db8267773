package io.moses.mdal;

import io.moses.mdal.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract on a real MariaDB server through MySQL Connector/J. */
@Tag("e2e")
class MariaDbKnowledgeBaseTest extends KnowledgeBaseContract {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();

    @Override
    protected String newDatabase() throws Exception {
        return MARIADB.createDatabase();
    }

    @Override
    protected Credentials credentials() {
        return MARIADB.credentials();
    }

    @Override
    protected Connection rawConnection(String spec) throws SQLException {
        return DriverManager.getConnection(spec.replace("jdbc:mariadb:", "jdbc:mysql:"), MARIADB.user(), MARIADB.password());
    }
}
