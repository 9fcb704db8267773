package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.SlaEvent;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** SLA events (violations, admissions, rejections) in the order they happened. */
final class SlaEventStore {
    private final Database db;

    SlaEventStore(Database db) {
        this.db = db;
    }

    void recordSlaEvent(SlaEvent e) {
        if (e == null) throw KnowledgeBaseException.invalid("slaEvent must not be null");
        if (e.at() == null) throw KnowledgeBaseException.invalid("slaEvent.at must not be null");
        if (e.kind() == null) throw KnowledgeBaseException.invalid("slaEvent.kind must not be null");
        if (e.serviceClass() != null) name("slaEvent.serviceClass", e.serviceClass(), NAME_MAX);
        if (e.user() != null) name("slaEvent.user", e.user(), NAME_MAX);
        db.tx("record SLA event", c -> {
            update(c, "UPDATE id_counter SET next_id = next_id + 1 WHERE name = 'sla_event'");
            long id = one(query(c, "SELECT next_id - 1 FROM id_counter WHERE name = 'sla_event'", rs -> rs.getLong(1)))
                    .orElseThrow(() -> new SQLException("id_counter row missing"));
            update(c, "INSERT INTO sla_event (id, at_ms, kind, class_name, user_name, detail) VALUES (?, ?, ?, ?, ?, ?)",
                    id, e.at().toEpochMilli(), e.kind().name(), e.serviceClass(), e.user(), truncate(e.detail(), TEXT_MAX));
            return null;
        });
    }

    List<SlaEvent> slaEvents(Instant since, int limit) {
        if (limit < 0) throw KnowledgeBaseException.invalid("limit must be >= 0, was " + limit);
        if (limit == 0) return List.of();
        long from = since == null ? Long.MIN_VALUE : since.toEpochMilli();
        return db.tx("list SLA events", c -> query(c, limit,
                "SELECT at_ms, kind, class_name, user_name, detail FROM sla_event WHERE at_ms >= ? ORDER BY at_ms, id",
                rs -> new SlaEvent(Instant.ofEpochMilli(rs.getLong(1)), SlaEvent.Kind.valueOf(rs.getString(2)), rs.getString(3),
                        rs.getString(4), rs.getString(5)), from));
    }
}
