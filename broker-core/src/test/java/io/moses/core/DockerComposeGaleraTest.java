package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.galera.yml, the Galera variant of docker-compose.yml, checked without a Docker
 * engine like the first: the same replicas and HAProxy, three Galera nodes instead of MariaDB,
 * one bootstrap, joiners one at a time, replicas on a URL naming every node.
 */
class DockerComposeGaleraTest {
    static final List<String> NODES = List.of("galera-1", "galera-2", "galera-3");

    static JsonNode services() throws Exception {
        return DockerComposeTest.YAML.readTree(DockerComposeTest.ROOT.resolve("docker-compose.galera.yml").toFile()).path("services");
    }

    @Test
    void threeGaleraNodesReplaceTheOneMariaDbAndOnlyTheFirstStartBootstraps() throws Exception {
        JsonNode services = services();
        Set<String> names = new TreeSet<>();
        services.fieldNames().forEachRemaining(names::add);
        // docker-compose.yml's services, with the Galera nodes in MariaDB's place
        Set<String> expected = new TreeSet<>();
        DockerComposeTest.compose().path("services").fieldNames().forEachRemaining(expected::add);
        expected.remove("mariadb");
        expected.addAll(NODES);
        assertEquals(expected, names);
        for (String n : NODES) {
            JsonNode s = services.path(n);
            String cmd = s.path("command").toString();
            for (String option : List.of("--wsrep-on=ON", "--wsrep-provider=/usr/lib/galera/libgalera_smm.so",
                    "--wsrep-cluster-address=gcomm://galera-1,galera-2,galera-3", "--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
                    "--wsrep-sst-method=", "--wsrep-node-name=" + n, "utf8mb4_bin"))
                assertTrue(cmd.contains(option), n + " has " + option + ": " + cmd);
            assertFalse(cmd.contains("--wsrep-new-cluster"), n + " never bootstraps from its command: " + cmd);
            assertTrue(s.path("healthcheck").path("test").toString().contains("--galera_online"), n + " is healthy when Synced");
            assertEquals(n, s.path("volumes").get(0).asText().split(":")[0], n + " keeps its data in a volume of its own");
        }
        // galera-1 bootstraps only when it has no Galera state yet (its first start); after that it rejoins
        String entry = services.path("galera-1").path("entrypoint").toString();
        assertTrue(entry.contains("grastate.dat") && entry.contains("--wsrep-new-cluster"), entry);
        assertTrue(services.path("galera-2").path("entrypoint").isMissingNode() && services.path("galera-3").path("entrypoint").isMissingNode());
        // joiners one at a time: each takes a full state transfer from a donor
        assertEquals("service_healthy", services.path("galera-2").path("depends_on").path("galera-1").path("condition").asText());
        assertEquals("service_healthy", services.path("galera-3").path("depends_on").path("galera-2").path("condition").asText());
    }

    @Test
    void theReplicasStubsAndHaproxyAreThoseOfDockerComposeYmlOnAUrlOfEveryNode() throws Exception {
        JsonNode services = services();
        JsonNode plain = DockerComposeTest.compose().path("services");
        for (String b : List.of("broker-1", "broker-2")) {
            JsonNode s = services.path(b);
            for (String n : NODES) assertEquals("service_healthy", s.path("depends_on").path(n).path("condition").asText(), b + " waits for " + n);
            String cmd = s.path("command").toString();
            assertTrue(cmd.contains("jdbc:mariadb://galera-1:3306,galera-2:3306,galera-3:3306/moses"), cmd);
            // apart from the database URL, the replica is started as in docker-compose.yml
            assertEquals(plain.path(b).path("command").toString().replace("jdbc:mariadb://mariadb:3306/moses",
                    "jdbc:mariadb://galera-1:3306,galera-2:3306,galera-3:3306/moses"), cmd);
            assertEquals(plain.path(b).path("environment"), s.path("environment"));
            assertEquals(plain.path(b).path("healthcheck"), s.path("healthcheck"));
        }
        assertEquals(DockerComposeTest.compose().path("secrets"), DockerComposeTest.YAML.readTree(DockerComposeTest.ROOT.resolve("docker-compose.galera.yml").toFile()).path("secrets"), "the same TLS certificate");
        // every other service (the stubs, HAProxy, the monitoring beside them) is docker-compose.yml's own
        for (var it = plain.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!name.equals("mariadb") && !name.startsWith("broker-")) assertEquals(plain.path(name), services.path(name), name);
        }
        // and the volumes the monitoring's data lives in
        JsonNode volumes = DockerComposeTest.YAML.readTree(DockerComposeTest.ROOT.resolve("docker-compose.galera.yml").toFile()).path("volumes");
        assertTrue(volumes.has("prometheus") && volumes.has("grafana"), volumes.toString());
    }

    @Test
    void dockerComposeAcceptsTheFileWhereItIsInstalled() throws Exception {
        DockerComposeTest.assertComposeAccepts("docker-compose.galera.yml");
    }
}
