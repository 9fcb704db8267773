package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/** {@link ReplanRequests} on the knowledge base's table {@code replan_request}. */
final class ReplanRequestStore implements ReplanRequests {
    private static final int TEXT_MAX = 2000;
    private final Database db;

    ReplanRequestStore(Database db) {
        this.db = db;
    }

    private static String truncate(String s) {
        return s == null ? "" : s.length() <= TEXT_MAX ? s : s.substring(0, TEXT_MAX - 1) + "\u2026";
    }

    private static Request request(ResultSet rs) throws SQLException {
        String w = rs.getString(3);
        Set<String> without = w.isEmpty() ? Set.of() : new LinkedHashSet<>(Arrays.asList(w.split(",")));
        long v = rs.getLong(6);
        Long version = rs.wasNull() ? null : v;
        return new Request(rs.getString(1), rs.getString(2), without, rs.getString(4), rs.getLong(5), version, rs.getString(7));
    }

    private static final String COLUMNS = "id, reason, without_list, requested_by, requested_ms, plan_version, answer";

    @Override
    public String ask(String reason, Set<String> without, String requestedBy) {
        String id = UUID.randomUUID().toString();
        String list = String.join(",", new TreeSet<>(without));
        if (list.length() > TEXT_MAX) throw KnowledgeBaseException.invalid("replanRequest.without: too many services");
        db.tx("ask the leader for a plan", c -> update(c, "INSERT INTO replan_request (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                id, truncate(reason), list, truncate(requestedBy), System.currentTimeMillis()));
        return id;
    }

    @Override
    public List<Request> pending() {
        return db.tx("read pending plan requests", c -> query(c, "SELECT " + COLUMNS
                + " FROM replan_request WHERE plan_version IS NULL ORDER BY requested_ms, id", ReplanRequestStore::request));
    }

    @Override
    public void answer(List<String> ids, long planVersion, String answer) {
        if (ids.isEmpty()) return;
        db.tx("answer plan requests", c -> {
            for (String id : ids)
                update(c, "UPDATE replan_request SET plan_version = ?, answer = ? WHERE id = ? AND plan_version IS NULL",
                        planVersion, truncate(answer), id);
            update(c, "DELETE FROM replan_request WHERE plan_version IS NOT NULL AND requested_ms < ?",
                    System.currentTimeMillis() - 3_600_000L);
            return null;
        });
    }

    @Override
    public Optional<Request> request(String id) {
        return db.tx("read plan request", c -> one(query(c, "SELECT " + COLUMNS + " FROM replan_request WHERE id = ?",
                ReplanRequestStore::request, id)));
    }
}
