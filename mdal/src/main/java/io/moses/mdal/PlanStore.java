package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Plans: published whole under the next version, read whole, with their history. */
final class PlanStore {
    private static final double FRACTION_TOLERANCE = 1e-6;

    private final Database db;

    PlanStore(Database db) {
        this.db = db;
    }

    Plan publish(Plan draft) {
        if (draft == null) throw KnowledgeBaseException.invalid("plan must not be null");
        finite("plan.objective", draft.objective());
        finiteNonNegative("plan.solveMillis", draft.solveMillis());
        String solver = name("plan.solver", draft.solver(), NAME_MAX);
        String reason = truncate(draft.reason(), TEXT_MAX);
        Instant created = draft.created() == null ? Instant.now() : draft.created();
        draft.predictions().forEach((k, p) -> {
            String f = "plan.predictions[" + k + "]";
            name(f + ".serviceClass", k, NAME_MAX);
            finiteNonNegative(f + ".responseTime", p.responseTime());
            double a = p.availability();
            if (!(a >= 0 && a <= 1)) throw KnowledgeBaseException.invalid(f + ".availability must be in [0, 1], was " + a);
            finiteNonNegative(f + ".cost", p.cost());
        });
        for (Plan.ClassAtRisk r : draft.atRisk()) {
            String f = "plan.atRisk[" + r.serviceClass() + "]";
            name(f + ".serviceClass", r.serviceClass(), NAME_MAX);
            finite(f + ".responseTimeExcess", r.responseTimeExcess());
            finite(f + ".availabilityShortfall", r.availabilityShortfall());
            finite(f + ".costExcess", r.costExcess());
        }
        for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
            String f = "plan.bindings[" + e.getKey().serviceClass() + ", " + e.getKey().task() + "]";
            name(f + ".serviceClass", e.getKey().serviceClass(), NAME_MAX);
            task(f + ".task", e.getKey().task());
            if (e.getValue().isEmpty()) throw KnowledgeBaseException.invalid(f + " has no shares");
            double sum = 0;
            for (Plan.Share s : e.getValue()) {
                double x = s.fraction();
                if (!(x >= 0 && x <= 1)) throw KnowledgeBaseException.invalid(f + ".fraction must be in [0, 1], was " + x);
                if (s.implementation().toString().length() > 1000)
                    throw KnowledgeBaseException.invalid(f + ".implementation is too long");
                sum += x;
            }
            if (Math.abs(sum - 1) > FRACTION_TOLERANCE)
                throw KnowledgeBaseException.invalid(f + ": fractions must sum to 1, sum to " + sum);
        }
        return db.tx("publish plan", c -> {
            checkReferences(c, draft);
            update(c, "UPDATE plan_head SET version = version + 1 WHERE id = 1"); // row lock: one publisher at a time
            long version = one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1)))
                    .orElseThrow(() -> new SQLException("plan_head row missing"));
            update(c, "INSERT INTO plan (version, created_ms, objective, solver, solve_millis, reason) VALUES (?, ?, ?, ?, ?, ?)",
                    version, created.toEpochMilli(), draft.objective(), solver, draft.solveMillis(), reason);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO plan_share (version, class_name, composite, task, position, "
                    + "implementation, fraction) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
                    int pos = 0;
                    for (Plan.Share s : e.getValue()) {
                        ps.setLong(1, version);
                        ps.setString(2, e.getKey().serviceClass());
                        ps.setString(3, e.getKey().task().composite());
                        ps.setString(4, e.getKey().task().name());
                        ps.setInt(5, pos++);
                        ps.setString(6, s.implementation().toString());
                        ps.setDouble(7, s.fraction());
                        ps.addBatch();
                    }
                }
                ps.executeBatch();
            }
            for (Map.Entry<String, Plan.Prediction> e : draft.predictions().entrySet())
                update(c, "INSERT INTO plan_prediction (version, class_name, response_time, availability, cost) VALUES (?, ?, ?, ?, ?)",
                        version, e.getKey(), e.getValue().responseTime(), e.getValue().availability(), e.getValue().cost());
            for (Plan.ClassAtRisk r : draft.atRisk())
                update(c, "INSERT INTO plan_at_risk (version, class_name, response_time_excess, availability_shortfall, cost_excess, "
                                + "breaks_sla) VALUES (?, ?, ?, ?, ?, ?)",
                        version, r.serviceClass(), r.responseTimeExcess(), r.availabilityShortfall(), r.costExcess(), r.breaksSla());
            Instant stored = Instant.ofEpochMilli(created.toEpochMilli());
            return new Plan(version, stored, draft.bindings(), draft.predictions(), draft.objective(), solver,
                    draft.solveMillis(), draft.atRisk(), reason);
        });
    }

    /** Classes, tasks and members of a plan must be known, and each member must implement its task. */
    private static void checkReferences(Connection c, Plan draft) throws SQLException {
        Set<String> classes = new HashSet<>(query(c, "SELECT name FROM service_class", rs -> rs.getString(1)));
        Map<String, TaskRef> services = new HashMap<>();
        query(c, "SELECT name, composite, task FROM concrete_service", rs -> services.put(rs.getString(1),
                new TaskRef(rs.getString(2), rs.getString(3))));
        for (Map.Entry<Plan.Key, List<Plan.Share>> e : draft.bindings().entrySet()) {
            Plan.Key k = e.getKey();
            String f = "plan.bindings[" + k.serviceClass() + ", " + k.task() + "]";
            if (!classes.contains(k.serviceClass()))
                throw KnowledgeBaseException.invalid(f + ".serviceClass: unknown service class '" + k.serviceClass() + "'");
            for (Plan.Share s : e.getValue())
                for (String m : s.implementation().members()) {
                    TaskRef t = services.get(m);
                    if (t == null)
                        throw KnowledgeBaseException.invalid(f + ".implementation " + s.implementation()
                                + ": unknown concrete service '" + m + "'");
                    if (!t.equals(k.task()))
                        throw KnowledgeBaseException.invalid(f + ".implementation " + s.implementation()
                                + ": concrete service '" + m + "' implements " + t + ", not " + k.task());
                }
        }
        // a plan of several composites predicts each (class, composite): "gold/TripPlanner"
        for (String k : draft.predictions().keySet()) {
            String cls = k.indexOf('/') > 0 ? k.substring(0, k.indexOf('/')) : k;
            if (!classes.contains(cls)) throw KnowledgeBaseException.invalid("plan.predictions: unknown service class '" + cls + "' in '" + k + "'");
        }
        for (Plan.ClassAtRisk r : draft.atRisk())
            if (!classes.contains(r.serviceClass()))
                throw KnowledgeBaseException.invalid("plan.atRisk: unknown service class '" + r.serviceClass() + "'");
    }

    long latestPlanVersion() {
        return db.tx("read latest plan version", c -> one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1))).orElse(0L));
    }

    Optional<Plan> latestPlan() {
        return db.tx("read latest plan", c -> {
            long v = one(query(c, "SELECT version FROM plan_head WHERE id = 1", rs -> rs.getLong(1))).orElse(0L);
            return v == 0 ? Optional.empty() : loadPlan(c, v);
        });
    }

    Optional<Plan> plan(long version) {
        return db.tx("read plan " + version, c -> loadPlan(c, version));
    }

    List<Plan> planHistory(int n) {
        if (n < 0) throw KnowledgeBaseException.invalid("n must be >= 0, was " + n);
        if (n == 0) return List.of();
        return db.tx("read plan history", c -> {
            List<Long> versions = query(c, n, "SELECT version FROM plan ORDER BY version DESC", rs -> rs.getLong(1));
            List<Plan> out = new ArrayList<>();
            for (long v : versions) loadPlan(c, v).ifPresent(out::add);
            return out;
        });
    }

    private static Optional<Plan> loadPlan(Connection c, long version) throws SQLException {
        record Head(Instant created, double objective, String solver, double solveMillis, String reason) {}
        Optional<Head> head = one(query(c, "SELECT created_ms, objective, solver, solve_millis, reason FROM plan WHERE version = ?",
                rs -> new Head(Instant.ofEpochMilli(rs.getLong(1)), rs.getDouble(2), rs.getString(3), rs.getDouble(4), rs.getString(5)),
                version));
        if (head.isEmpty()) return Optional.empty();
        Map<Plan.Key, List<Plan.Share>> bindings = new LinkedHashMap<>();
        query(c, "SELECT class_name, composite, task, implementation, fraction FROM plan_share WHERE version = ? "
                        + "ORDER BY class_name, composite, task, position",
                rs -> bindings.computeIfAbsent(new Plan.Key(rs.getString(1), new TaskRef(rs.getString(2), rs.getString(3))),
                        k -> new ArrayList<>()).add(new Plan.Share(Implementation.parse(rs.getString(4)), rs.getDouble(5))),
                version);
        Map<String, Plan.Prediction> predictions = new LinkedHashMap<>();
        query(c, "SELECT class_name, response_time, availability, cost FROM plan_prediction WHERE version = ? ORDER BY class_name",
                rs -> predictions.put(rs.getString(1), new Plan.Prediction(rs.getDouble(2), rs.getDouble(3), rs.getDouble(4))), version);
        List<Plan.ClassAtRisk> atRisk = query(c, "SELECT class_name, response_time_excess, availability_shortfall, cost_excess, breaks_sla "
                        + "FROM plan_at_risk WHERE version = ? ORDER BY class_name",
                rs -> new Plan.ClassAtRisk(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getBoolean(5)), version);
        Head h = head.get();
        return Optional.of(new Plan(version, h.created(), bindings, predictions, h.objective(), h.solver(), h.solveMillis(), atRisk, h.reason()));
    }
}
