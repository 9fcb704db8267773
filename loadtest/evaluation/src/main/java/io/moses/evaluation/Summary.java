package io.moses.evaluation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/** The text the bench prints and the report keeps: the steps side by side, saturation, ratios. */
final class Summary {
    private Summary() {}

    static String of(Bench.Options o, List<ClosedStep> closed, List<OpenStep> open, double invokes) {
        StringBuilder s = new StringBuilder();
        Set<String> targets = new LinkedHashSet<>();
        closed.forEach(c -> targets.add(c.target()));
        open.forEach(c -> targets.add(c.target()));
        s.append(String.format(Locale.ROOT, "stub calls per composite request (measured through the first broker): %.2f%n", invokes));
        if (!closed.isEmpty()) {
            s.append("\nclosed model (The Grinder): composite req/s | mean ms | p95 ms | errors | CPU ms/req of the target's process\n");
            s.append(String.format("%8s", "workers"));
            for (String t : targets) s.append(String.format(" | %-42s", t));
            s.append('\n');
            for (int w : o.workers()) {
                s.append(String.format("%8d", w));
                for (String t : targets) {
                    Optional<ClosedStep> c = closed.stream().filter(x -> x.target().equals(t) && x.workers() == w).findFirst();
                    s.append(c.map(x -> String.format(Locale.ROOT, " | %7.1f %7.1f %7.1f %5d %6.2f%s", x.composite(), x.meanMs(), x.p95Ms(),
                            x.errors(), x.cpuMsPerRequest(), " ".repeat(6))).orElse(String.format(" | %-42s", "-")));
                }
                s.append('\n');
            }
            for (String t : targets) {
                List<ClosedStep> c = closed.stream().filter(x -> x.target().equals(t)).toList();
                if (c.isEmpty()) continue;
                ClosedStep peak = c.stream().max((a, b) -> Double.compare(a.composite(), b.composite())).orElseThrow();
                Integer sat = saturatedFrom(c);
                s.append(String.format(Locale.ROOT, "%s: peak %.1f composite req/s at %d workers; %s%n", t, peak.composite(), peak.workers(),
                        sat == null ? "still rising at " + c.get(c.size() - 1).workers() + " workers"
                                : "saturated from " + sat + " workers (doubling the workers added under 10%)"));
            }
            ratio(s, closed, "adaptive", "static", "adaptive/static");
            ratio(s, closed, "static", "direct", "static/direct-limit");
            ratio(s, closed, "adaptive", "direct", "adaptive/direct-limit");
            for (String b : o.bindings())
                for (int n : o.replicas()) {
                    if (n == 1) continue;
                    ratio(s, closed, b + "@" + n, b + "@1", b + ": " + n + " replicas/1 replica");
                }
            for (int n : o.replicas()) {
                ratio(s, closed, "adaptive@" + n, "static@" + n, "adaptive/static with " + n + " replica" + (n == 1 ? "" : "s"));
                ratio(s, closed, "adaptive@" + n, "direct", "adaptive with " + n + " replica" + (n == 1 ? "" : "s") + "/direct-limit");
            }
        }
        if (!open.isEmpty()) {
            s.append("\nopen model (httperf): per offered composite req/s: replies/s | mean ms | p95 ms | errors; * beyond saturation\n");
            s.append(String.format("%8s", "rate"));
            for (String t : targets) s.append(String.format(" | %-36s", t));
            s.append('\n');
            for (double r : o.rates()) {
                s.append(String.format(Locale.ROOT, "%8.1f", r));
                for (String t : targets) {
                    Optional<OpenStep> c = open.stream().filter(x -> x.target().equals(t) && x.rate() == r).findFirst();
                    s.append(c.map(x -> String.format(Locale.ROOT, " | %7.1f %7.1f %7.1f %5d %s%s", x.achievedRps() * x.rate() / x.offeredRps(),
                            x.meanMs(), x.p95Ms(), x.errors(), x.saturated() ? "*" : " ", " ".repeat(5))).orElse(String.format(" | %-36s", "-")));
                }
                s.append('\n');
            }
            for (String t : targets) {
                List<OpenStep> c = open.stream().filter(x -> x.target().equals(t)).toList();
                if (c.isEmpty()) continue;
                Optional<OpenStep> lastOk = c.stream().filter(x -> !x.saturated()).reduce((a, b) -> b);
                List<String> beyond = c.stream().filter(OpenStep::saturated).map(x -> Bench.f(x.rate())
                        + (x.interrupted() ? " (httperf stopped at its time bound)" : "")).toList();
                List<String> notRun = Arrays.stream(o.rates()).filter(r -> c.stream().noneMatch(x -> x.rate() == r)).mapToObj(Bench::f).toList();
                s.append(String.format(Locale.ROOT, "%s: absorbed up to %s req/s; beyond saturation: %s%s%n", t,
                        lastOk.map(x -> Bench.f(x.rate())).orElse("none of the rates"), beyond.isEmpty() ? "none of the rates" : String.join(", ", beyond),
                        notRun.isEmpty() ? "" : "; not run (two lower rates beyond saturation): " + String.join(", ", notRun)));
            }
            openRatio(s, open, "adaptive", "static", "adaptive/static");
            for (String b : o.bindings())
                for (int n : o.replicas()) {
                    if (n == 1) continue;
                    openRatio(s, open, b + "@" + n, b + "@1", b + ": " + n + " replicas/1 replica");
                    absorbedRatio(s, open, o.rates(), b + "@" + n, b + "@1", b + ": " + n + " replicas/1 replica");
                }
            for (int n : o.replicas()) openRatio(s, open, "adaptive@" + n, "static@" + n, "adaptive/static with " + n + " replica" + (n == 1 ? "" : "s"));
        }
        s.append("\nthe MOSES paper (4-core node): about 140 TPS in the closed model, saturation near 130 req/s in the open model\n");
        if (o.replicas().stream().anyMatch(n -> n > 1))
            s.append(String.format(Locale.ROOT, "replicas: this machine has %d cores, shared by the load generator, the stubs, HAProxy, MariaDB and%n"
                    + "every replica: a second replica adds no cores, so N replicas/1 replica measures what the cluster costs and%n"
                    + "how HAProxy spreads the load, not scale-out (the paper's second node was a second machine)%n",
                    Runtime.getRuntime().availableProcessors()));
        return s.toString();
    }

    /** The first worker count whose throughput is under 1.1 times the previous step's; null if none. */
    static Integer saturatedFrom(List<ClosedStep> steps) {
        for (int i = 1; i < steps.size(); i++)
            if (steps.get(i).composite() < 1.1 * steps.get(i - 1).composite()) return steps.get(i).workers();
        return null;
    }

    private static void ratio(StringBuilder s, List<ClosedStep> closed, String a, String b, String label) {
        List<ClosedStep> x = closed.stream().filter(c -> c.target().equals(a)).toList();
        List<ClosedStep> y = closed.stream().filter(c -> c.target().equals(b)).toList();
        if (x.isEmpty() || y.isEmpty()) return;
        double peak = max(x, ClosedStep::composite) / max(y, ClosedStep::composite);
        List<Double> tput = new ArrayList<>(), rt = new ArrayList<>(), cpu = new ArrayList<>();
        for (ClosedStep p : x)
            y.stream().filter(q -> q.workers() == p.workers()).findFirst().ifPresent(q -> {
                tput.add(p.composite() / q.composite());
                rt.add(p.meanMs() / q.meanMs());
                cpu.add(p.cpuMsPerRequest() / q.cpuMsPerRequest());
            });
        // against the direct-call limit only throughput compares: one stub call is not a composite request
        s.append(String.format(Locale.ROOT, "ratio %s: peak throughput %.2f, median per step: throughput %.2f%s%n", label, peak, median(tput),
                b.equals("direct") ? "" : String.format(Locale.ROOT, ", mean response time %.2f, CPU per request %.2f", median(rt), median(cpu))));
    }

    private static void openRatio(StringBuilder s, List<OpenStep> open, String a, String b, String label) {
        List<Double> rt = new ArrayList<>(), p95 = new ArrayList<>(), cpu = new ArrayList<>();
        for (OpenStep p : open)
            if (p.target().equals(a) && !p.saturated())
                open.stream().filter(q -> q.target().equals(b) && q.rate() == p.rate() && !q.saturated()).findFirst().ifPresent(q -> {
                    rt.add(p.meanMs() / q.meanMs());
                    p95.add(p.p95Ms() / q.p95Ms());
                    cpu.add(p.cpuMsPerRequest() / q.cpuMsPerRequest());
                });
        if (rt.isEmpty()) return;
        s.append(String.format(Locale.ROOT, "ratio %s over the rates both absorbed (median): mean response time %.2f, p95 %.2f, CPU per request %.2f%n",
                label, median(rt), median(p95), median(cpu)));
    }

    /** The highest rate each target absorbed, as a ratio: how much further the open model went. */
    private static void absorbedRatio(StringBuilder s, List<OpenStep> open, double[] rates, String a, String b, String label) {
        double x = absorbed(open, a), y = absorbed(open, b);
        if (Double.isNaN(x) || Double.isNaN(y) || y == 0) return;
        s.append(String.format(Locale.ROOT, "ratio %s, highest rate absorbed: %.2f (%s against %s req/s)%n", label, x / y, Bench.f(x), Bench.f(y)));
    }

    private static double absorbed(List<OpenStep> open, String target) {
        return open.stream().filter(x -> x.target().equals(target) && !x.saturated()).mapToDouble(OpenStep::rate).max().orElse(Double.NaN);
    }

    /**
     * Every configured step present for every target, and nothing failed at low load: the first
     * two closed-model steps and the lowest open-model rate.
     */
    static boolean lowLoadClean(Bench.Options o, List<ClosedStep> closed, List<OpenStep> open) {
        List<String> targets = o.targets();
        double lowest = Arrays.stream(o.rates()).min().orElse(0);
        for (String t : targets) {
            if (o.closed()) {
                for (int i = 0; i < o.workers().length; i++) {
                    int w = o.workers()[i];
                    Optional<ClosedStep> c = closed.stream().filter(x -> x.target().equals(t) && x.workers() == w).findFirst();
                    if (c.isEmpty() || c.get().requests() == 0) return false;
                    if (i < 2 && c.get().errors() > 0) return false;
                }
            }
            if (o.open()) {
                // every rate, except those after two rates in a row beyond saturation (not run)
                int inARow = 0;
                for (double r : o.rates()) {
                    Optional<OpenStep> step = open.stream().filter(x -> x.target().equals(t) && x.rate() == r).findFirst();
                    if (step.isEmpty()) {
                        if (inARow < 2) return false;
                        continue;
                    }
                    inARow = step.get().saturated() ? inARow + 1 : 0;
                }
                if (open.stream().anyMatch(x -> x.target().equals(t) && x.rate() == lowest && x.errors() > 0)) return false;
            }
        }
        return true;
    }

    private static <T> double max(List<T> l, ToDoubleFunction<T> f) {
        return l.stream().mapToDouble(f).max().orElse(Double.NaN);
    }

    static double median(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (s.length == 0) return Double.NaN;
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
