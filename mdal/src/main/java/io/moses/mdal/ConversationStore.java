package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/** Which replica owns the instance of a correlation value (V8), and which user started it (V12). */
final class ConversationStore {
    private final Database db;

    ConversationStore(Database db) {
        this.db = db;
    }

    void register(ConversationOwner o, long atMillis) {
        if (o == null) throw KnowledgeBaseException.invalid("conversation owner must not be null");
        name("conversation.process", o.process(), 400);
        name("conversation.correlationKey", o.correlationKey(), 2000);
        name("conversation.replica", o.replica(), 200);
        name("conversation.address", o.address(), 400);
        if (o.user() != null) name("conversation.user", o.user(), 100);
        String hash = hash(o.process(), o.correlationKey());
        db.upsert("register conversation", c -> {
            // the newest registration wins: a key re-initiated by a new instance belongs to it
            if (update(c, "UPDATE conversation_owner SET instance_id = ?, replica = ?, address = ?, user_name = ?, at_ms = ? WHERE key_hash = ?",
                    o.instanceId(), o.replica(), o.address(), o.user(), atMillis, hash) == 0)
                update(c, "INSERT INTO conversation_owner (key_hash, process, correlation_key, instance_id, replica, address, user_name, at_ms) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", hash, o.process(), o.correlationKey(), o.instanceId(), o.replica(), o.address(),
                        o.user(), atMillis);
            return null;
        });
    }

    Optional<ConversationOwner> owner(String process, String correlationKey) {
        String hash = hash(process, correlationKey);
        return db.tx("read conversation owner", c -> one(query(c,
                "SELECT process, correlation_key, instance_id, replica, address, user_name FROM conversation_owner WHERE key_hash = ?",
                rs -> new ConversationOwner(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5), rs.getString(6)),
                hash)));
    }

    int forgetInstance(String replica, long instanceId) {
        return db.tx("forget conversation instance", c ->
                update(c, "DELETE FROM conversation_owner WHERE replica = ? AND instance_id = ?", replica, instanceId));
    }

    int forgetReplica(String replica) {
        return db.tx("forget replica conversations", c -> update(c, "DELETE FROM conversation_owner WHERE replica = ?", replica));
    }

    private static String hash(String process, String key) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(process.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            d.update(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
