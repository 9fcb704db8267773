package io.moses.optimizer;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The linear program of docs/model.md ("The linear program") for one planning input, and its
 * variants: the hard program, the two phases of the relaxed program and the largest-utilization
 * program ("When the program is infeasible"). Columns: x^k_iJ per (class, task) block, then z per (class, flow).
 */
final class Program {
    /** The x columns of one (class, task): column {@code first + j} is implementation j. */
    record Block(String serviceClass, TaskRef task, List<ImplementationQos> implementations, int first) {}

    /** One (class, composite) pair: its SLA rows and objective terms. */
    record Unit(ServiceClass serviceClass, CompositeService composite, String label, Visits.Profile profile,
                Map<TaskRef, Double> visits, LinearExpression responseTime, LinearExpression logAvailability,
                LinearExpression cost, double omega, double load) {}

    final PlanningInput in;
    final Candidates candidates;
    final List<Block> blocks = new ArrayList<>();
    final List<Unit> units = new ArrayList<>();
    /** Load per endpoint as an expression of x, and its limit l_j. */
    final Map<String, LinearExpression> endpointLoad = new LinkedHashMap<>();
    final Map<String, Double> capacity;
    /** Objective expressions: utility F and revenue. */
    final LinearExpression utility = new LinearExpression();
    final LinearExpression revenue = new LinearExpression();
    /**
     * Tasks with concrete services registered but none available: no program can be built (the
     * engine leaves their composites out and builds again).
     */
    final Set<TaskRef> uncovered = new LinkedHashSet<>();
    /**
     * Tasks with no concrete service registered at all: not managed by the broker (their invokes
     * go to the address in the process's WSDL), so outside the program: no columns, no rows, and
     * nothing in any unit's R, A or C (docs/model.md, "What is planned").
     */
    final Set<TaskRef> unmanaged = new LinkedHashSet<>();
    /** Estimates that were not numbers and were left out (the candidates' and the visits'). */
    final List<String> ignoredEstimates = new ArrayList<>();
    private final Map<String, Block> blockIndex = new LinkedHashMap<>();
    private final LinearProgram core = new LinearProgram();

    Program(PlanningInput in) {
        this.in = in;
        Set<TaskRef> tasks = new LinkedHashSet<>();
        for (CompositeService c : in.composites()) tasks.addAll(Visits.tasks(c));
        Set<TaskRef> registered = new HashSet<>();
        for (ConcreteService cs : in.services()) registered.add(cs.task());
        for (TaskRef t : tasks) if (!registered.contains(t)) unmanaged.add(t);
        tasks.removeAll(unmanaged);
        candidates = new Candidates(in, tasks);
        capacity = candidates.capacity();
        ignoredEstimates.addAll(candidates.ignoredEstimates());
        for (TaskRef t : tasks) if (candidates.of(t).isEmpty()) uncovered.add(t);
        if (!uncovered.isEmpty()) return;

        var s = in.settings();
        double eps = 1e-3, totalLoad = 0;
        for (ServiceClass k : in.classes()) totalLoad += in.load(k.name());
        for (ServiceClass k : in.classes()) {
            for (CompositeService c : in.composites()) {
                for (TaskRef t : Visits.tasks(c)) {
                    if (unmanaged.contains(t)) continue;
                    List<ImplementationQos> impls = candidates.of(t);
                    int first = core.columns();
                    for (int j = 0; j < impls.size(); j++) core.addColumn(0);
                    Block b = new Block(k.name(), t, impls, first);
                    blocks.add(b);
                    blockIndex.put(k.name() + "\u0000" + t.composite() + "\u0000" + t.name(), b);
                    int[] idx = new int[impls.size()];
                    double[] one = new double[impls.size()];
                    for (int j = 0; j < idx.length; j++) { idx[j] = first + j; one[j] = 1; }
                    core.addRow("sum[" + k.name() + "," + t + "]", idx, one, LinearProgram.Kind.EQ, 1);
                }
            }
            for (Candidates.StatefulPartner p : candidates.statefulPartners()) sameProvider(k.name(), p);
        }
        for (ServiceClass k : in.classes()) {
            double load = in.load(k.name());
            double omega = (load + eps) / (totalLoad + in.classes().size() * eps);
            Visits.Profile profile = in.profiles().getOrDefault(k.name(), Visits.Profile.DEFAULT);
            for (CompositeService c : in.composites()) {
                String label = in.composites().size() == 1 ? k.name() : k.name() + "/" + c.name();
                Map<TaskRef, Double> visits = new LinkedHashMap<>(Visits.of(c, profile));
                visits.keySet().removeAll(unmanaged);
                Map<TaskRef, Double> measured = in.visits().get(k.name());
                if (measured != null)
                    for (TaskRef t : visits.keySet()) {
                        Double v = measured.get(t);
                        if (v == null) continue;
                        if (Double.isFinite(v)) visits.put(t, v);
                        else ignoredEstimates.add("measured visits of " + t + " by " + k.name() + " (" + v + ")");
                    }
                LinearExpression r = responseTime(c.root(), profile, k.name(), label);
                LinearExpression la = new LinearExpression(), co = new LinearExpression();
                for (var e : visits.entrySet()) {
                    double v = e.getValue();
                    if (v == 0) continue;
                    Block b = block(k.name(), e.getKey());
                    for (int j = 0; j < b.implementations().size(); j++) {
                        ImplementationQos q = b.implementations().get(j);
                        la.add(b.first() + j, v * q.logAvailability());
                        co.add(b.first() + j, v * q.cost());
                        if (load > 0)
                            for (var share : q.endpointShare().entrySet())
                                endpointLoad.computeIfAbsent(share.getKey(), x -> new LinearExpression())
                                        .add(b.first() + j, load * v * share.getValue());
                    }
                }
                Unit u = new Unit(k, c, label, profile, visits, r, la, co, omega, load);
                units.add(u);
                double lnMin = Math.log(k.minAvailability());
                double d = Math.max(-lnMin, 1e-3);
                // F = sum omega [w_r (1 - R/Rmax) + w_a (lnA - lnAmin)/d + w_c (1 - C/Cmax)]
                utility.add(r, -omega * s.weightResponseTime() / k.maxResponseTime());
                utility.add(la, omega * s.weightAvailability() / d);
                utility.add(co, -omega * s.weightCost() / k.maxCost());
                utility.addConstant(omega * (s.weightResponseTime() - s.weightAvailability() * lnMin / d + s.weightCost()));
                revenue.add(co, -load);
                revenue.addConstant(load * k.price());
            }
        }
    }

    /**
     * One provider per (class, stateful partner): each provider e gets the same fraction on every
     * task of the partner, x^k_{t1,e} = x^k_{tj,e} (docs/model.md, "Stateful partners"). The last
     * provider's rows are left out: they follow from the tasks' sum rows (a stateful task's columns
     * are the providers' singles alone), and a solver is better off without dependent equalities.
     * Column generation keeps these rows, as every row, and a column that enters brings its
     * coefficients in them; a stateful task's singles are in its start anyway.
     */
    private void sameProvider(String cls, Candidates.StatefulPartner p) {
        List<TaskRef> ts = p.tasks();
        List<String> providers = p.providers();
        for (int e = 0; e + 1 < providers.size(); e++)
            for (int j = 1; j < ts.size(); j++) {
                LinearExpression row = new LinearExpression().add(onProvider(cls, ts.get(0), providers.get(e)), 1)
                        .add(onProvider(cls, ts.get(j), providers.get(e)), -1);
                core.addRow("provider[" + cls + "," + p + "," + providers.get(e) + "," + ts.get(j).operation() + "]", row,
                        LinearProgram.Kind.EQ, 0);
            }
    }

    /** x^k_{t,e}: the sum of class k's fractions of task t on the singles of endpoint e (usually one). */
    private LinearExpression onProvider(String cls, TaskRef t, String endpoint) {
        Block b = block(cls, t);
        LinearExpression e = new LinearExpression();
        for (int j = 0; j < b.implementations().size(); j++) {
            ImplementationQos q = b.implementations().get(j);
            if (q.implementation().pattern() == Implementation.Pattern.SINGLE && q.endpointShare().containsKey(endpoint))
                e.add(b.first() + j, 1);
        }
        return e;
    }

    /**
     * Why {@code tasks} (uncovered ones) have no candidate, {@code none} followed by the tasks
     * without an available concrete service, then each stateful partner none of whose endpoints
     * offers every one of its tasks.
     */
    String whyUncovered(Collection<TaskRef> tasks, String none) {
        List<TaskRef> plain = new ArrayList<>();
        Set<Candidates.StatefulPartner> partners = new LinkedHashSet<>();
        for (TaskRef t : tasks) {
            Candidates.StatefulPartner p = candidates.partnerOf(t);
            if (p != null && candidates.available(t)) partners.add(p);
            else plain.add(t);
        }
        List<String> parts = new ArrayList<>();
        if (!plain.isEmpty()) parts.add(none + plain);
        for (Candidates.StatefulPartner p : partners)
            parts.add("stateful partner " + p + ": no provider (endpoint) offers every one of its tasks " + p.tasks());
        return String.join("; ", parts);
    }

    Block block(String serviceClass, TaskRef task) {
        return blockIndex.get(serviceClass + "\u0000" + task.composite() + "\u0000" + task.name());
    }

    /** R(a) as an expression of x and z; each flow adds a z column and one row per branch. */
    private LinearExpression responseTime(Activity a, Visits.Profile p, String cls, String label) {
        LinearExpression e = new LinearExpression();
        if (a instanceof Activity.Invoke i) {
            Block b = block(cls, i.task());
            if (b == null) return e; // unmanaged: outside the program
            for (int j = 0; j < b.implementations().size(); j++) e.add(b.first() + j, b.implementations().get(j).responseTime());
        } else if (a instanceof Activity.Sequence s) {
            for (Activity c : s.children()) e.add(responseTime(c, p, cls, label), 1);
        } else if (a instanceof Activity.Choice c) {
            List<Double> probs = Visits.probabilities(c, p);
            for (int b = 0; b < c.branches().size(); b++) {
                double prob = probs.get(b);
                if (prob > 0) e.add(responseTime(c.branches().get(b), p, cls, label), prob);
            }
        } else if (a instanceof Activity.Loop l) {
            double n = Visits.iterations(l, p);
            if (n > 0) e.add(responseTime(l.body(), p, cls, label), n);
        } else if (a instanceof Activity.ParallelForEach f) {
            // N concurrent copies of one body have the same expected time: z >= R(body) is R(body)
            if (Visits.copies(f, p) > 0) e.add(responseTime(f.body(), p, cls, label), 1);
        } else if (a instanceof Activity.Flow f) {
            List<LinearExpression> branches = new ArrayList<>();
            double constant = 0;
            for (Activity b : f.branches()) {
                LinearExpression be = responseTime(b, p, cls, label);
                if (be.isConstant()) constant = Math.max(constant, be.constant());
                else branches.add(be);
            }
            if (branches.isEmpty()) e.addConstant(constant);
            else if (branches.size() == 1 && constant <= 0) e.add(branches.get(0), 1);
            else {
                int z = core.addColumn(0);
                core.setBounds(z, constant, Double.POSITIVE_INFINITY);
                for (LinearExpression be : branches) {
                    LinearExpression row = new LinearExpression().add(z, 1).add(be, -1);
                    core.addRow("flow[" + label + "," + f.id() + "]", row, LinearProgram.Kind.GE, 0);
                }
                e.add(z, 1);
            }
        }
        return e;
    }

    int columns() {
        return core.columns();
    }

    int xColumns() {
        return blocks.isEmpty() ? 0 : blocks.get(blocks.size() - 1).first() + blocks.get(blocks.size() - 1).implementations().size();
    }

    /** Per x column, the (class, task) block it belongs to: the groups column generation prices in. */
    int[] pricingGroups() {
        int[] g = new int[xColumns()];
        for (int b = 0; b < blocks.size(); b++) {
            Block bl = blocks.get(b);
            Arrays.fill(g, bl.first(), bl.first() + bl.implementations().size(), b);
        }
        return g;
    }

    /**
     * Where column generation starts, per (class, task): the {@code singles} single services best
     * for {@code lp}'s objective, the fastest and the most available implementation (they keep
     * the SLA rows feasible where one can), and the implementations the plan in force uses there
     * (a warm start: after a small change they are mostly still optimal).
     */
    BitSet initialColumns(LinearProgram lp, Map<Plan.Key, List<Plan.Share>> inForce, int singles) {
        BitSet on = new BitSet(xColumns());
        double sense = lp.maximize() ? -1 : 1; // smaller key is better
        for (Block b : blocks) {
            List<ImplementationQos> impls = b.implementations();
            int n = impls.size();
            Integer[] order = new Integer[n];
            for (int j = 0; j < n; j++) order[j] = j;
            java.util.Arrays.sort(order, (p, q) -> {
                int c = Double.compare(sense * lp.objective(b.first() + p), sense * lp.objective(b.first() + q));
                return c != 0 ? c : Double.compare(impls.get(p).responseTime(), impls.get(q).responseTime());
            });
            int taken = 0;
            for (int k = 0; k < n && taken < singles; k++)
                if (impls.get(order[k]).implementation().pattern() == Implementation.Pattern.SINGLE) {
                    on.set(b.first() + order[k]);
                    taken++;
                }
            int fastest = 0, mostAvailable = 0;
            for (int j = 1; j < n; j++) {
                if (impls.get(j).responseTime() < impls.get(fastest).responseTime()) fastest = j;
                if (impls.get(j).availability() > impls.get(mostAvailable).availability()) mostAvailable = j;
            }
            on.set(b.first() + order[0]);
            on.set(b.first() + fastest);
            on.set(b.first() + mostAvailable);
            List<Plan.Share> shares = inForce == null ? null : inForce.get(new Plan.Key(b.serviceClass(), b.task()));
            if (shares != null)
                for (Plan.Share sh : shares)
                    for (int j = 0; j < n; j++)
                        if (impls.get(j).implementation().equals(sh.implementation())) on.set(b.first() + j);
        }
        return on;
    }

    /** The hard program: SLA rows without slack, capacity as given, the chosen objective. */
    LinearProgram hard() {
        LinearProgram lp = core.copy();
        addCapacity(lp, 1.0);
        for (Unit u : units) addSla(lp, u, -1, -1, -1);
        return lp;
    }

    /** Slack columns of a relaxed program, per unit: R, A, C. */
    record Relaxed(LinearProgram lp, int[][] slack, LinearExpression weightedSlack) {}

    /** Phase 1 of the relaxed program: SLA rows with relative slacks, minimize the price-weighted total slack. */
    Relaxed phase1(double capacityScale) {
        LinearProgram lp = core.copy();
        addCapacity(lp, capacityScale);
        int[][] slack = new int[units.size()][3];
        LinearExpression total = new LinearExpression();
        for (int i = 0; i < units.size(); i++) {
            Unit u = units.get(i);
            double pi = Math.max(u.serviceClass().price(), 1e-3);
            for (int j = 0; j < 3; j++) {
                slack[i][j] = lp.addColumn(0);
                total.add(slack[i][j], pi);
            }
            addSla(lp, u, slack[i][0], slack[i][1], slack[i][2]);
        }
        setObjective(lp, total, false);
        return new Relaxed(lp, slack, total);
    }

    /**
     * Phase 2: the total weighted slack held at phase 1's optimum. The budget is that optimum plus
     * 1e-7 relative, rounded up to a grid of 1e-9 (relative): phase 1's optimum differs between
     * solvers by about 1e-13, and phase 2's objective can be very steep in the budget (a thin
     * optimal face), so both solvers must get the very same budget to agree.
     */
    Relaxed phase2(double capacityScale, double phase1Optimum) {
        Relaxed r = phase1(capacityScale);
        r.lp().addRow("phase1", r.weightedSlack(), LinearProgram.Kind.LE, slackBudget(phase1Optimum));
        r.lp().clearObjective();
        return r;
    }

    static double slackBudget(double phase1Optimum) {
        double s = Math.max(0, phase1Optimum);
        double step = 1e-9 * Math.max(1, s);
        return Math.ceil((s * (1 + 1e-7) + 1e-9) / step) * step;
    }

    /** Minimize u = max_j load_j / l_j with the SLA rows dropped (capacity overload). */
    LinearProgram minUtilization() {
        LinearProgram lp = core.copy();
        int u = lp.addColumn(1);
        for (var e : endpointLoad.entrySet()) {
            LinearExpression row = new LinearExpression().add(e.getValue(), 1).add(u, -capacity.get(e.getKey()));
            lp.addRow("util[" + e.getKey() + "]", row, LinearProgram.Kind.LE, 0);
        }
        lp.setMaximize(false);
        return lp;
    }

    private void addCapacity(LinearProgram lp, double scale) {
        for (var e : endpointLoad.entrySet())
            if (!e.getValue().isConstant())
                lp.addRow("cap[" + e.getKey() + "]", e.getValue(), LinearProgram.Kind.LE, capacity.get(e.getKey()) * scale);
    }

    /** SLA rows of a unit; a slack column index of -1 means none (hard). */
    private void addSla(LinearProgram lp, Unit u, int sR, int sA, int sC) {
        ServiceClass k = u.serviceClass();
        double m = in.settings().margin();
        double lnMin = Math.log(k.minAvailability());
        double d = Math.max(-lnMin, 1e-3);
        LinearExpression r = new LinearExpression().add(u.responseTime(), 1);
        if (sR >= 0) r.add(sR, -k.maxResponseTime());
        if (!r.isConstant()) lp.addRow("R[" + u.label() + "]", r, LinearProgram.Kind.LE, (1 - m) * k.maxResponseTime());
        LinearExpression a = new LinearExpression().add(u.logAvailability(), 1);
        if (sA >= 0) a.add(sA, d);
        if (!a.isConstant()) lp.addRow("A[" + u.label() + "]", a, LinearProgram.Kind.GE, lnMin);
        LinearExpression c = new LinearExpression().add(u.cost(), 1);
        if (sC >= 0) c.add(sC, -k.maxCost());
        if (!c.isConstant()) lp.addRow("C[" + u.label() + "]", c, LinearProgram.Kind.LE, k.maxCost());
    }

    /** The chosen objective of the input (utility or revenue). */
    LinearExpression objective() {
        return in.settings().objective() == PlanningInput.Objective.REVENUE ? revenue : utility;
    }

    static void setObjective(LinearProgram lp, LinearExpression e, boolean maximize) {
        lp.clearObjective();
        int[] idx = e.indices();
        double[] c = e.coefficients();
        for (int i = 0; i < idx.length; i++) lp.setObjective(idx[i], c[i]);
        lp.setObjectiveConstant(e.constant());
        lp.setMaximize(maximize);
    }

    // ---- reading a solution -------------------------------------------------------------

    /** Fractions per (class, task): negatives and dust below 1e-9 dropped, renormalized to sum 1. */
    Map<Plan.Key, List<Plan.Share>> bindings(double[] x) {
        Map<Plan.Key, List<Plan.Share>> out = new LinkedHashMap<>();
        for (Block b : blocks) {
            double sum = 0;
            for (int j = 0; j < b.implementations().size(); j++) sum += Math.max(0, x[b.first() + j]);
            List<Plan.Share> shares = new ArrayList<>();
            double kept = 0;
            for (int j = 0; j < b.implementations().size(); j++) {
                double f = Math.max(0, x[b.first() + j]) / sum;
                if (f >= 1e-9) kept += f;
            }
            for (int j = 0; j < b.implementations().size(); j++) {
                double f = Math.max(0, x[b.first() + j]) / sum;
                if (f >= 1e-9) shares.add(new Plan.Share(b.implementations().get(j).implementation(), f / kept));
            }
            shares.sort((p, q) -> Double.compare(q.fraction(), p.fraction()));
            out.put(new Plan.Key(b.serviceClass(), b.task()), shares);
        }
        return out;
    }

    /** Expected time of task t for class k under x: sum_J x r_J. */
    double taskTime(double[] x, String cls, TaskRef t) {
        Block b = block(cls, t);
        if (b == null) return 0; // unmanaged: outside the program
        double r = 0;
        for (int j = 0; j < b.implementations().size(); j++) r += x[b.first() + j] * b.implementations().get(j).responseTime();
        return r;
    }

    /** Predicted R (walking the tree, flows as max), A (prod of mixed availabilities) and C of a unit. */
    Plan.Prediction predict(Unit u, double[] x) {
        double r = Workflow.responseTime(u.composite().root(), u.profile(), t -> taskTime(x, u.serviceClass().name(), t));
        double lnA = 0, c = 0;
        for (var e : u.visits().entrySet()) {
            if (e.getValue() == 0) continue;
            Block b = block(u.serviceClass().name(), e.getKey());
            double a = 0, co = 0;
            for (int j = 0; j < b.implementations().size(); j++) {
                a += x[b.first() + j] * b.implementations().get(j).availability();
                co += x[b.first() + j] * b.implementations().get(j).cost();
            }
            lnA += e.getValue() * Math.log(Math.max(a, 1e-300));
            c += e.getValue() * co;
        }
        // exp of a sum of logs can round a hair above 1 (1.0000000000000002): an availability is at most 1
        return new Plan.Prediction(r, Math.min(1.0, Math.exp(lnA)), c);
    }

    /** {@link #predict} of every unit under the fractions of {@code plan}; units whose shares are not all candidates here are left out. */
    Map<String, Plan.Prediction> evaluate(Plan plan) {
        double[] x = new double[core.columns()];
        Set<String> incomplete = new HashSet<>();
        for (Block b : blocks) {
            List<Plan.Share> shares = plan.shares(b.serviceClass(), b.task());
            if (shares.isEmpty()) incomplete.add(b.serviceClass());
            for (Plan.Share sh : shares) {
                int j = 0;
                while (j < b.implementations().size() && !same(b.implementations().get(j).implementation(), sh.implementation())) j++;
                if (j == b.implementations().size()) incomplete.add(b.serviceClass());
                else x[b.first() + j] += sh.fraction();
            }
        }
        Map<String, Plan.Prediction> out = new LinkedHashMap<>();
        for (Unit u : units)
            if (!incomplete.contains(u.serviceClass().name())) out.put(u.label(), predict(u, x));
        return out;
    }

    /** The same pattern of the same members (a hedge's delay is recomputed from the samples). */
    private static boolean same(Implementation a, Implementation b) {
        return a.pattern() == b.pattern() && a.members().equals(b.members());
    }

    /** Utilization load_j / l_j of every endpoint with load. */
    Map<String, Double> utilization(double[] x) {
        Map<String, Double> u = new LinkedHashMap<>();
        for (var e : endpointLoad.entrySet()) u.put(e.getKey(), e.getValue().evaluate(x) / capacity.get(e.getKey()));
        return u;
    }
}
