package io.moses.core.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/metrics.md names every meter the broker registers, and nothing else: the meters' names
 * in broker-core's sources (each {@code "moses.x.y"} of a class that uses Micrometer) against
 * the names in the page's tables, as Prometheus spells them ({@code moses_x_y}, then the unit
 * or {@code _total}), and the JVM binders the broker binds against the page's binder table.
 */
class MetricsReferenceTest {
    static final Path PAGE = Markdown.ROOT.resolve("docs/metrics.md");
    static final Path SOURCES = Path.of("src/main/java").toAbsolutePath();
    /** What Prometheus appends to a meter's name: its base unit, or _total for a counter. */
    static final List<String> SUFFIXES = List.of("", "_seconds", "_bytes", "_total");

    @Test
    void everyMeterOfTheBrokerIsOnThePageAndEveryNameOnThePageIsAMeter() throws Exception {
        Map<String, String> meters = meters(); // moses.x.y -> the file registering it
        assertTrue(meters.size() >= 20, "meters found in the sources: " + meters);
        Set<String> documented = new TreeSet<>();
        for (List<String> row : Markdown.table(PAGE, "Broker")) documented.addAll(Markdown.code(row.get(0)));
        Set<String> undocumented = new TreeSet<>();
        for (Map.Entry<String, String> m : meters.entrySet())
            if (documented.stream().noneMatch(d -> spells(d, m.getKey()))) undocumented.add(m.getKey() + " (" + m.getValue() + ")");
        assertTrue(undocumented.isEmpty(), "meters the broker registers that docs/metrics.md does not list: " + undocumented);
        Set<String> unknown = new TreeSet<>();
        for (String d : documented)
            if (meters.keySet().stream().noneMatch(m -> spells(d, m))) unknown.add(d);
        assertTrue(unknown.isEmpty(), "names docs/metrics.md lists that no meter of the broker has: " + unknown);
    }

    @Test
    void theJvmBindersOnThePageAreTheOnesTheBrokerBinds() throws Exception {
        Set<String> bound = new TreeSet<>();
        for (Path source : sources()) {
            Matcher m = Pattern.compile("new ([A-Z]\\w*Metrics)\\(\\)").matcher(Files.readString(source));
            while (m.find()) if (!m.group(1).equals("BrokerMetrics")) bound.add(m.group(1));
        }
        Set<String> documented = new TreeSet<>();
        for (List<String> row : Markdown.table(PAGE, "JVM and process (Micrometer's standard binders)")) documented.add(row.get(0));
        assertEquals(bound, documented, "the binder table of docs/metrics.md");
    }

    /** Whether the page's name {@code documented} is how Prometheus spells the meter {@code meter}. */
    static boolean spells(String documented, String meter) {
        String base = meter.replace('.', '_');
        return SUFFIXES.stream().anyMatch(s -> documented.equals(base + s));
    }

    static Map<String, String> meters() throws Exception {
        Map<String, String> out = new TreeMap<>();
        Pattern name = Pattern.compile("\"(moses(?:\\.[a-z]+)+)\"");
        for (Path source : sources()) {
            String text = Files.readString(source);
            if (!text.contains("io.micrometer")) continue;
            Matcher m = name.matcher(text);
            while (m.find()) out.putIfAbsent(m.group(1), SOURCES.relativize(source).toString());
        }
        return out;
    }

    static List<Path> sources() throws Exception {
        try (Stream<Path> s = Files.walk(SOURCES)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
