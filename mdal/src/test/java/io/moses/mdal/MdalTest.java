package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The --db spec, credentials, and failing fast without any server. */
class MdalTest {

    @Test
    void specsMapToH2OrConnectorJ() {
        Mdal.Target mem = Mdal.target("mem:demo");
        assertTrue(mem.url().startsWith("jdbc:h2:mem:demo;") && mem.h2InMemory() && !mem.mysql());
        assertTrue(Mdal.target("mem:").url().startsWith("jdbc:h2:mem:moses-"));

        Mdal.Target file = Mdal.target("data/kb");
        assertTrue(file.url().startsWith("jdbc:h2:file:" + Path.of("data/kb").toAbsolutePath()), file.url());

        Mdal.Target maria = Mdal.target("jdbc:mariadb://db.example:3306/moses");
        assertEquals("jdbc:mysql://db.example:3306/moses?connectTimeout=2000&socketTimeout=30000&tcpKeepAlive=true&sessionVariables=innodb_lock_wait_timeout=10", maria.url());
        assertTrue(maria.mysql() && !maria.urlHasCredentials());
        assertEquals("jdbc:mysql://h/db?connectTimeout=500&socketTimeout=30000&tcpKeepAlive=true&sessionVariables=innodb_lock_wait_timeout=10",
                Mdal.target("jdbc:mysql://h/db?connectTimeout=500").url());
        assertTrue(Mdal.target("jdbc:mysql://h/db?user=u&password=p").urlHasCredentials());
        assertTrue(Mdal.target("jdbc:mysql://u:p@h/db").urlHasCredentials());
    }

    @Test
    void aUrlOfSeveralGaleraNodesFailsOverToAWritableConnection() {
        assertEquals("jdbc:mysql://h1:3306,h2:3307,h3/moses?connectTimeout=2000&socketTimeout=30000&tcpKeepAlive=true&sessionVariables=innodb_lock_wait_timeout=10&failOverReadOnly=false",
                Mdal.target("jdbc:mariadb://h1:3306,h2:3307,h3/moses").url());
        String explicit = Mdal.target("jdbc:mysql://h1,h2/db?failOverReadOnly=true").url();
        assertTrue(explicit.contains("failOverReadOnly=true") && !explicit.contains("failOverReadOnly=false"), "an explicit choice stays: " + explicit);
        assertFalse(Mdal.target("jdbc:mysql://h1:3306/db").url().contains("failOverReadOnly"));
    }

    @Test
    void badSpecsAreRefusedNamingDb() {
        KnowledgeBaseException pg = assertThrows(KnowledgeBaseException.class, () -> Mdal.target("jdbc:postgresql://h/db?password=s3cret"));
        assertEquals(KnowledgeBaseException.Kind.INVALID, pg.kind());
        assertTrue(pg.getMessage().startsWith("db: unsupported JDBC URL"), pg.getMessage());
        assertFalse(pg.getMessage().contains("s3cret"));
        assertTrue(assertThrows(KnowledgeBaseException.class, () -> Mdal.target(" ")).getMessage().startsWith("db must not be empty"));
        assertTrue(assertThrows(KnowledgeBaseException.class, () -> Mdal.target("mem:a b")).getMessage().startsWith("db:"));
    }

    @Test
    void passwordsAreMaskedInDescriptions() {
        assertEquals("jdbc:mysql://h/db?user=u&password=***&x=1", Mdal.mask("jdbc:mysql://h/db?user=u&password=pw&x=1"));
        assertEquals("jdbc:mysql://u:***@h:3306/db", Mdal.mask("jdbc:mysql://u:pw@h:3306/db"));
        // Connector/J's multi-factor passwords
        assertEquals("jdbc:mysql://h/db?user=u&password1=***&password2=***&Password3=***&pwd=***",
                Mdal.mask("jdbc:mysql://h/db?user=u&password1=a&password2=b&Password3=c&pwd=d"));
        assertFalse(Credentials.of("u", "pw").toString().contains("pw"));
    }

    @Test
    void credentialsFromEnvironmentAndFiles(@TempDir Path dir) throws Exception {
        assertTrue(Credentials.fromEnvironment(Map.of()).isNone());
        assertEquals(Credentials.of("u", "p"), Credentials.fromEnvironment(Map.of("MOSES_DB_USER", "u", "MOSES_DB_PASSWORD", "p")));
        Path pw = Files.writeString(dir.resolve("pw"), "from-file\n");
        assertEquals(Credentials.of("u", "from-file"),
                Credentials.fromEnvironment(Map.of("MOSES_DB_USER", "u", "MOSES_DB_PASSWORD_FILE", pw.toString())));
        Path props = Files.writeString(dir.resolve("db.properties"), "user=moses\npassword=s3cret\n");
        assertEquals(Credentials.of("moses", "s3cret"), Credentials.fromFile(props));
        KnowledgeBaseException missing = assertThrows(KnowledgeBaseException.class, () -> Credentials.fromFile(dir.resolve("none")));
        assertTrue(missing.getMessage().contains("credentials file"));
    }

    @Test
    void openingAnUnreachableServerFailsFast() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class,
                () -> Mdal.open("jdbc:mariadb://127.0.0.1:" + port + "/moses", Credentials.of("u", "secret-pw")));
        assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, e.kind(), e.getMessage());
        // fast: it gives up on the refused connection itself, not after a pool or connect timeout
        boolean refused = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            refused |= t instanceof java.net.ConnectException;
            assertFalse(String.valueOf(t.getMessage()).contains("timed out"), "gave up on a timeout: " + t);
        }
        assertTrue(refused, "the refused connection is the cause: " + e);
        assertFalse(e.getMessage().contains("secret-pw"));
    }

    @Test
    void anH2FileDatabaseIsCreatedWithItsDirectories(@TempDir Path dir) {
        Path spec = dir.resolve("deep/er/moses");
        try (KnowledgeBase kb = Mdal.open(spec.toString(), Credentials.NONE)) {
            assertTrue(kb.isAvailable());
            assertTrue(kb.description().contains(spec.toString()));
        }
        assertTrue(Files.exists(dir.resolve("deep/er/moses.mv.db")));
    }
}
