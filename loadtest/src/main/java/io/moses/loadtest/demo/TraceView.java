package io.moses.loadtest.demo;

import io.moses.loadtest.demo.TraceCollector.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One composite request's trace drawn as a waterfall: the request, its invokes and their calls
 * to concrete services, each on a line with its bar on the request's time axis, as text for the
 * terminal and as SVG for a page (docs/tracing.md shows two). Which traces the demo draws: the
 * slowest request, and the slowest with a retried call, with a failed call its invoke got past,
 * with a hedge's second call and with a discarded 1-out-of-n loser, where the run had one.
 */
final class TraceView {
    private static final int BAR = 40;
    private final Span root;
    private final List<Line> lines = new ArrayList<>();

    /** A span at its depth in the tree. */
    private record Line(Span span, int depth) {}

    private TraceView(Span root, List<Span> trace) {
        this.root = root;
        Map<String, List<Span>> children = new HashMap<>();
        for (Span s : trace) children.computeIfAbsent(s.parentSpanId(), k -> new ArrayList<>()).add(s);
        children.values().forEach(c -> c.sort(Comparator.comparingLong(Span::start)));
        add(root, 0, children);
    }

    private void add(Span s, int depth, Map<String, List<Span>> children) {
        lines.add(new Line(s, depth));
        for (Span c : children.getOrDefault(s.spanId(), List.of())) add(c, depth + 1, children);
    }

    /** The traces worth drawing from {@code spans}, each once, by what they show. */
    static Map<String, TraceView> interesting(List<Span> spans) {
        Map<String, List<Span>> byTrace = new HashMap<>();
        for (Span s : spans) byTrace.computeIfAbsent(s.traceId(), k -> new ArrayList<>()).add(s);
        List<Span> roots = spans.stream().filter(s -> s.kind().equals("SERVER") && s.name().contains("/")).toList();
        Map<String, TraceView> out = new java.util.LinkedHashMap<>();
        roots.stream().max(Comparator.comparingLong(s -> s.end() - s.start()))
                .ifPresent(r -> out.put("the slowest request", new TraceView(r, byTrace.get(r.traceId()))));
        pick(roots, byTrace, out, s -> s.flag("moses.call.retry")).ifPresent(v -> out.put("a request with a retried call", v));
        // an alternate's first member failed: its invoke went on to the next provider, as the plan says
        pick(roots.stream().filter(r -> "ok".equals(r.string("moses.outcome"))).toList(), byTrace, out,
                s -> s.error() && !s.flag("moses.call.discarded") && !s.flag("moses.call.retry"))
                .ifPresent(v -> out.put("a request served after a failed call", v));
        pick(roots, byTrace, out, s -> s.flag("moses.call.hedge")).ifPresent(v -> out.put("a hedged request (its second call sent)", v));
        Map<String, Span> byId = new HashMap<>();
        for (Span s : spans) byId.put(s.spanId(), s);
        pick(roots, byTrace, out, s -> s.flag("moses.call.discarded") && byId.containsKey(s.parentSpanId())
                && "parallel".equals(byId.get(s.parentSpanId()).string("moses.pattern")))
                .ifPresent(v -> out.put("a 1-out-of-n invoke whose loser was discarded", v));
        return out;
    }

    /** The slowest request whose trace has a call that {@code shows}, of those not drawn yet. */
    private static Optional<TraceView> pick(List<Span> roots, Map<String, List<Span>> byTrace, Map<String, TraceView> drawn, Predicate<Span> shows) {
        java.util.Set<String> taken = new java.util.HashSet<>();
        drawn.values().forEach(v -> taken.add(v.traceId()));
        return roots.stream().filter(r -> !taken.contains(r.traceId()))
                .filter(r -> byTrace.get(r.traceId()).stream().anyMatch(s -> s.kind().equals("CLIENT") && shows.test(s)))
                .max(Comparator.comparingLong(s -> s.end() - s.start()))
                .map(r -> new TraceView(r, byTrace.get(r.traceId())));
    }

    String traceId() {
        return root.traceId();
    }

    /** What a span says beside its name: the choice, the provider's outcome, why it was sent. */
    private static String note(Span s) {
        List<String> n = new ArrayList<>();
        switch (s.kind()) {
            case "SERVER" -> {
                if (s.string("moses.class") != null) n.add(s.string("moses.class"));
                if (s.string("moses.outcome") != null) n.add(s.string("moses.outcome"));
            }
            case "INTERNAL" -> {
                if (s.string("moses.implementation") != null) n.add(s.string("moses.implementation"));
                if (s.attributes().get("moses.plan.version") != null) n.add("plan " + s.attributes().get("moses.plan.version"));
            }
            case "CLIENT" -> {
                if (s.string("moses.call.end") != null) n.add(s.string("moses.call.end"));
                for (String f : List.of("retry", "hedge", "exploration", "trial", "discarded"))
                    if (s.flag("moses.call." + f)) n.add(f);
            }
            default -> { }
        }
        return String.join(", ", n);
    }

    /** The waterfall as text: one line per span, its bar on the request's time axis. */
    String text() {
        long t0 = root.start(), total = Math.max(1, root.end() - root.start());
        StringBuilder out = new StringBuilder();
        out.append(String.format("  trace %s, %.0f ms%n", root.traceId(), root.millis()));
        for (Line l : lines) {
            Span s = l.span();
            int from = (int) Math.min(BAR - 1, Math.max(0, (s.start() - t0) * BAR / total));
            int to = (int) Math.min(BAR, Math.max(from + 1, (s.end() - t0) * BAR / total));
            String name = "  ".repeat(l.depth()) + s.name();
            out.append(String.format("  %-44s |%s%s%s| %7.1f ms  %s%n", name.length() > 44 ? name.substring(0, 44) : name,
                    " ".repeat(from), (s.error() ? "x" : "=").repeat(to - from), " ".repeat(BAR - to), s.millis(), note(s)));
        }
        return out.toString();
    }

    /** The waterfall as an SVG picture, titled {@code title}. */
    String svg(String title) {
        int rowH = 22, labelW = 330, barW = 520, noteW = 360, top = 48;
        int width = labelW + barW + noteW + 20, height = top + rowH * lines.size() + 34;
        long t0 = root.start(), total = Math.max(1, root.end() - root.start());
        StringBuilder out = new StringBuilder();
        out.append(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                width, height));
        out.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        out.append(String.format("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>%n", esc(title)));
        out.append(String.format("<text x=\"10\" y=\"38\" fill=\"#555\">trace %s, %.0f ms</text>%n", root.traceId(), root.millis()));
        for (int ms = 0, step = tick(root.millis()); ms <= root.millis(); ms += step) {
            double x = labelW + barW * (ms * 1e6) / total;
            out.append(String.format("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>%n", x, top - 4, x, top + rowH * lines.size()));
            out.append(String.format("<text x=\"%.1f\" y=\"%d\" fill=\"#888\" font-size=\"10\" text-anchor=\"middle\">%d ms</text>%n", x,
                    top + rowH * lines.size() + 14, ms));
        }
        for (int i = 0; i < lines.size(); i++) {
            Span s = lines.get(i).span();
            int y = top + i * rowH;
            double x = labelW + barW * (double) (s.start() - t0) / total;
            double w = Math.max(2, barW * (double) (s.end() - s.start()) / total);
            String color = s.error() ? "#d9534f" : s.flag("moses.call.discarded") ? "#bbbbbb"
                    : s.kind().equals("SERVER") ? "#337ab7" : s.kind().equals("INTERNAL") ? "#5bc0de" : "#5cb85c";
            out.append(String.format("<text x=\"%d\" y=\"%d\">%s</text>%n", 10 + 16 * lines.get(i).depth(), y + 15, esc(s.name())));
            out.append(String.format("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>%n", x, y + 4, w, rowH - 8, color));
            out.append(String.format("<text x=\"%d\" y=\"%d\" fill=\"#333\">%.1f ms  %s</text>%n", labelW + barW + 10, y + 15, s.millis(),
                    esc(note(s))));
        }
        out.append("</svg>\n");
        return out.toString();
    }

    /** A round step for the time axis: about five ticks. */
    private static int tick(double millis) {
        for (int step : new int[] {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000})
            if (millis / step <= 6) return step;
        return 20000;
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
