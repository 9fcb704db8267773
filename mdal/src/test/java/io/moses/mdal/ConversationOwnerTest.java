package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The owners of conversations (V8), on in-memory H2 and on MariaDB. */
@Tag("e2e")
class ConversationOwnerTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final String P = "{urn:test}Order";

    static Stream<String> backEnds() {
        return Stream.of("h2", "mariadb");
    }

    static KnowledgeBase open(String backEnd) throws Exception {
        return backEnd.equals("h2")
                ? Mdal.open("mem:conv" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)
                : Mdal.open(MARIADB.createDatabase(), MARIADB.credentials());
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aRegisteredValueNamesItsOwnerUntilItsInstanceEnds(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            assertTrue(kb.conversationOwner(P, "1~42").isEmpty());
            kb.registerConversation(new ConversationOwner(P, "1~42", 7, "a", "http://127.0.0.1:8081"));
            kb.registerConversation(new ConversationOwner(P, "2~x", 7, "a", "http://127.0.0.1:8081"));
            kb.registerConversation(new ConversationOwner(P, "1~43", 3, "b", "http://127.0.0.1:8082"));
            assertEquals(new ConversationOwner(P, "1~42", 7, "a", "http://127.0.0.1:8081"), kb.conversationOwner(P, "1~42").orElseThrow());
            // the user whose message started the instance travels with it (null: an anonymous starter)
            assertEquals(null, kb.conversationOwner(P, "1~42").orElseThrow().user());
            kb.registerConversation(new ConversationOwner(P, "3~u", 4, "b", "http://127.0.0.1:8082", "alice"));
            assertEquals(new ConversationOwner(P, "3~u", 4, "b", "http://127.0.0.1:8082", "alice"), kb.conversationOwner(P, "3~u").orElseThrow());
            // the same value of another process is another conversation
            assertTrue(kb.conversationOwner("{urn:test}Other", "1~42").isEmpty());
            // a value initiated again by a newer instance belongs to it
            kb.registerConversation(new ConversationOwner(P, "1~43", 9, "a", "http://127.0.0.1:8081"));
            assertEquals("a", kb.conversationOwner(P, "1~43").orElseThrow().replica());
            assertEquals(2, kb.forgetConversations("a", 7));
            assertTrue(kb.conversationOwner(P, "1~42").isEmpty());
            assertEquals(1, kb.forgetConversations("a"));
            assertEquals(1, kb.forgetConversations("b", 4));
            assertTrue(kb.conversationOwner(P, "1~43").isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aLongKeyIsStoredWholeAndAnEmptyReplicaRefused(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            String key = "1~" + "v".repeat(1500);
            kb.registerConversation(new ConversationOwner(P, key, 1, "a", "http://127.0.0.1:1"));
            assertEquals(key, kb.conversationOwner(P, key).orElseThrow().correlationKey());
            assertThrows(KnowledgeBaseException.class,
                    () -> kb.registerConversation(new ConversationOwner(P, "k", 1, "", "http://127.0.0.1:1")));
        }
    }
}
