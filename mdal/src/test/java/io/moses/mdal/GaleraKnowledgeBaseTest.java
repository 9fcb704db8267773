package io.moses.mdal;

import io.moses.mdal.testing.GaleraCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on a real three-node MariaDB Galera cluster, through the multi-host URL the
 * broker uses (Connector/J failover over all nodes).
 */
@Tag("e2e")
class GaleraKnowledgeBaseTest extends KnowledgeBaseContract {
    @RegisterExtension
    static final GaleraCluster GALERA = GaleraCluster.shared();

    @Override
    protected String newDatabase() throws Exception {
        return GALERA.createDatabase();
    }

    @Override
    protected Credentials credentials() {
        return GALERA.credentials();
    }

    @Override
    protected Connection rawConnection(String spec) throws SQLException {
        return DriverManager.getConnection(spec.replace("jdbc:mariadb:", "jdbc:mysql:"), GALERA.user(), GALERA.password());
    }
}
