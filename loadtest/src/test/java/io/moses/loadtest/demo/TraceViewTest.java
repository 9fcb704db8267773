package io.moses.loadtest.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.loadtest.demo.TraceCollector.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo's trace drawings: which traces it picks, and the waterfall's tree and bars. */
class TraceViewTest {
    private static final long MS = 1_000_000L;

    private static Span span(String trace, String id, String parent, String name, String kind, long fromMs, long toMs,
                             Map<String, Object> attributes, boolean error) {
        return new Span("moses-broker", Map.of(), trace, id, parent, name, kind, fromMs * MS, toMs * MS, attributes, error);
    }

    /** A request with one invoke of two calls; {@code second}'s attributes say what the second call was. */
    private static List<Span> request(String trace, long millis, Map<String, Object> second, boolean firstFailed) {
        List<Span> t = new ArrayList<>();
        t.add(span(trace, trace + "r", "", "TripPlanner/planTrip", "SERVER", 0, millis, Map.of("moses.class", "gold", "moses.outcome", "ok"), false));
        t.add(span(trace, trace + "i", trace + "r", "invoke hotel.findHotel", "INTERNAL", 10, millis - 10,
                Map.of("moses.implementation", "hedge(hotel-b,hotel-a;d=0.1)", "moses.pattern", "hedged"), false));
        t.add(span(trace, trace + "c1", trace + "i", "call hotel-b", "CLIENT", 10, millis / 2,
                Map.of("moses.call.end", firstFailed ? "protocol" : "reply"), firstFailed));
        t.add(span(trace, trace + "c2", trace + "i", "call hotel-a", "CLIENT", millis / 2, millis - 10, second, false));
        return t;
    }

    @Test
    void picksTheSlowestTheFailedCallAndTheHedgeEachTraceOnce() {
        List<Span> spans = new ArrayList<>();
        spans.addAll(request("a", 100, Map.of("moses.call.end", "reply"), false));
        spans.addAll(request("b", 400, Map.of("moses.call.end", "reply"), false));
        spans.addAll(request("c", 300, Map.of("moses.call.end", "reply", "moses.call.hedge", true), true));
        spans.addAll(request("d", 200, Map.of("moses.call.end", "reply", "moses.call.hedge", true), false));
        Map<String, TraceView> views = TraceView.interesting(spans);
        assertEquals(List.of("the slowest request", "a request served after a failed call", "a hedged request (its second call sent)"),
                List.copyOf(views.keySet()));
        assertEquals("b", views.get("the slowest request").traceId());
        assertEquals("c", views.get("a request served after a failed call").traceId());
        assertEquals("d", views.get("a hedged request (its second call sent)").traceId(), "c, a slower hedge, is drawn already");
    }

    @Test
    void theWaterfallIsTheTreeInTimeOrderWithBarsOnTheRequestsAxis() {
        TraceView v = TraceView.interesting(request("t", 400, Map.of("moses.call.end", "reply", "moses.call.hedge", true,
                "moses.call.discarded", true), true)).get("the slowest request");
        List<String> lines = v.text().lines().toList();
        assertEquals(5, lines.size(), v.text());
        assertTrue(lines.get(1).contains("TripPlanner/planTrip") && lines.get(1).contains("|" + "=".repeat(40) + "|"), lines.get(1));
        assertTrue(lines.get(2).startsWith("    invoke hotel.findHotel"), "an invoke under its request: " + lines.get(2));
        assertTrue(lines.get(3).startsWith("      call hotel-b") && lines.get(3).contains("| " + "x".repeat(19) + " "), "a failed call drawn with x, from 10 ms to 200 ms: " + lines.get(3));
        assertTrue(lines.get(4).contains("reply, hedge, discarded"), lines.get(4));
        // the second call starts halfway: its bar starts at the 20th of 40 columns
        String bar = lines.get(4).substring(lines.get(4).indexOf('|') + 1, lines.get(4).lastIndexOf('|'));
        assertEquals(20, bar.indexOf('='), bar);
        String svg = v.svg("a <test>");
        assertTrue(svg.startsWith("<svg") && svg.contains("a &lt;test&gt;") && svg.contains("#d9534f"), "escaped title, the failed call in red");
    }
}
