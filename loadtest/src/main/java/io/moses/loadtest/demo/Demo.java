package io.moses.loadtest.demo;

import io.moses.loadtest.driver.LoadResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code moses demo}: the broker end to end on one machine. Starts the stub services and a
 * broker as child processes, deploys the trip planner with its seed (classes, users, two
 * concrete services per task, an initial plan), runs a closed-loop workload from several
 * clients as the seed's users, prints what happened, and stops everything it started.
 * Exits 0 only if every request succeeded.
 */
public final class Demo {
    private static final Pattern STUBS = Pattern.compile("stubs listening on http://[^:]+:(\\d+)");
    private static final Pattern BROKER = Pattern.compile("broker listening on http://[^:]+:(\\d+)");
    /** The engine's start line names the store of BPEL variables (the broker's fast one, or it refuses to start). */
    private static final Pattern VARIABLE_STORE = Pattern.compile("variables in ([\\w.$]+)");
    /** The trip planner seed's demo users: name, password, class. */
    public static final String[][] USERS = {
            {"alice", "alice-demo", "gold"}, {"bob", "bob-demo", "silver"}, {"carl", "carl-demo", "bronze"},
            {"anna", "anna-demo", "gold"}, {"bea", "bea-demo", "silver"}, {"cleo", "cleo-demo", "bronze"}};

    /** The trip planner seed's operator (demo password): the admin API and the management services require it. */
    public static final String[] OPERATOR = {"operator", "operator-demo"};

    private Demo() {}

    public static void main(String[] args) throws Exception {
        int requests = 1000;
        int clients = 8;
        String db = null;
        boolean keep = false;
        String scenario = "steady";
        boolean trace = false;
        Path seed = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trace" -> trace = true;
                case "--seed" -> seed = Path.of(value(args, ++i));
                case "--requests" -> requests = positive(args, ++i);
                case "--clients" -> clients = positive(args, ++i);
                case "--db" -> db = value(args, ++i);
                case "--keep-logs" -> keep = true;
                case "--scenario" -> {
                    scenario = value(args, ++i);
                    if (!List.of("steady", "degrade", "ramp").contains(scenario))
                        usage("--scenario is steady, degrade or ramp, got '" + scenario + "'");
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        Path home = Path.of(System.getProperty("moses.home", "."));
        String brokerClasspath = System.getProperty("moses.broker.classpath");
        if (brokerClasspath == null) usage("run through ./moses demo (the broker's class path is missing)");
        if (seed == null) seed = home.resolve("bpel-processes/trip-planner/seed.yaml");
        else if (!Files.isReadable(seed)) usage("--seed " + seed + ": no such file");
        Path tmp = Files.createTempDirectory("moses-demo");
        boolean ok = false;
        say("demo: stubs, broker and logs in " + tmp);
        String otlp = System.getenv("OTEL_EXPORTER_OTLP_ENDPOINT");
        try (TraceCollector traces = trace && (otlp == null || otlp.isBlank()) ? new TraceCollector() : null;
             Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(STUBS, 60));
            say("demo: stub services on port " + stubPort + " (12 concrete services, 2 per task)");
            List<String> brokerArgs = new ArrayList<>(List.of("--port", "0", "--work", tmp.resolve("work").toString(),
                    "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                    "--seed", seed.toString(),
                    "--set", "STUBS=http://127.0.0.1:" + stubPort));
            // a knowledge base of an earlier demo gets the seed again: the stubs' port changed
            if (db != null) brokerArgs.addAll(List.of("--db", db, "--reseed"));
            // JVM options ./moses gives brokers (its AOT cache, or the recording that makes it)
            List<String> brokerJvm = System.getProperty("moses.broker.jvm", "").isBlank() ? List.of()
                    : List.of(System.getProperty("moses.broker.jvm").trim().split("\\s+"));
            // spans every 200 ms to the demo's own receiver, or to the endpoint this environment names
            Map<String, String> env = traces == null ? Map.of() : Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", traces.endpoint(), "OTEL_BSP_SCHEDULE_DELAY", "200");
            try (Child broker = new Child("broker", brokerJvm, env, brokerClasspath, "io.moses.core.Main", brokerArgs, tmp.resolve("broker.log"))) {
                int port = Integer.parseInt(broker.await(BROKER, 120));
                String base = "http://127.0.0.1:" + port;
                say("demo: broker on port " + port + ", knowledge base " + (db == null ? "embedded H2" : mask(db))
                        + ", BPEL variables in " + broker.await(VARIABLE_STORE, 10) + ", trip planner deployed");
                say("demo: operator '" + OPERATOR[0] + "', demo password '" + OPERATOR[1]
                        + "' (admin API " + base + "/admin/plan, SLA Manager " + base + "/manage/sla?wsdl, Service Manager "
                        + base + "/manage/services?wsdl)");
                if (traces != null) say("demo: tracing on: the broker sends its spans (OTLP/HTTP) to the demo, which draws some traces at the end");
                else if (trace) say("demo: tracing on: the broker sends its spans to " + otlp + " (OTEL_EXPORTER_OTLP_ENDPOINT); Jaeger shows them at"
                        + " http://127.0.0.1:16686, service moses-broker (docs/tracing.md)");
                say("demo: " + requests + " composite requests from " + clients + " concurrent clients (users of the gold, silver and bronze classes)");
                LoadResult r;
                boolean degrade = scenario.equals("degrade"), ramp = scenario.equals("ramp");
                if (degrade) {
                    r = Degrade.run(clients, requests, base, stubPort, Demo::say);
                } else if (ramp) {
                    r = Ramp.run(clients, requests, base, stubPort, Demo::say);
                } else {
                    r = TripLoad.run(base, clients, requests, null, p -> say(p.toString()));
                    System.out.println();
                    System.out.println(r.report());
                }
                System.out.println();
                System.out.println(answeredBy(fetch(base + "/metrics")));
                if (traces != null) drawTraces(traces, (int) (r.requests() + r.warmupRequests()), tmp);
                // degrade: requests fail while a service the plan relies on is down and not yet
                // out of the plan; success there is the broker adapting
                ok = degrade ? Degrade.adapted && Degrade.slasKept : ramp ? Ramp.slasKept && r.errorCount() == 0 : r.errorCount() == 0;
                if (ramp) say(ok ? "demo: OK: every class kept its SLA through the ramp, and every request succeeded"
                        : !Ramp.slasKept ? "demo: FAILED: a class's SLA broke during the ramp; broker log: " + tmp.resolve("broker.log")
                        : "demo: FAILED: " + r.errorCount() + " requests failed during the ramp; broker log: " + tmp.resolve("broker.log"));
                else if (degrade) say(ok ? "demo: OK: every class kept its SLA after the reaction window, and the plan no longer uses the service that went down"
                        : !Degrade.slasKept ? "demo: FAILED: a class's SLA is broken after the reaction window; broker log: " + tmp.resolve("broker.log")
                        : "demo: FAILED: the plan still uses the service that went down");
                else if (!ok) say("demo: FAILED: " + r.errorCount() + " of " + r.requests() + " requests failed; broker log: " + tmp.resolve("broker.log"));
                else say("demo: OK: every request succeeded");
            }
        } catch (Exception e) {
            say("demo: FAILED: " + e.getMessage());
        } finally {
            if (ok && !keep && !trace) deleteTree(tmp);
        }
        System.exit(ok ? 0 : 1);
    }

    /** Prints the traces worth seeing of the run, as text, and writes each as an SVG picture into {@code dir}. */
    private static void drawTraces(TraceCollector traces, int requests, Path dir) throws Exception {
        List<TraceCollector.Span> spans = traces.await(requests, 20);
        Map<String, TraceView> views = TraceView.interesting(spans);
        System.out.println();
        say("demo: " + spans.size() + " spans of " + spans.stream().map(TraceCollector.Span::traceId).distinct().count()
                + " traces received; some of them (= a span's time, x a failed one; the bar spans the request):");
        int n = 0;
        for (var e : views.entrySet()) {
            Path svg = dir.resolve("trace-" + (++n) + ".svg");
            Files.writeString(svg, e.getValue().svg(e.getKey()));
            System.out.println();
            say(e.getKey() + " (picture: " + svg + ")");
            System.out.print(e.getValue().text());
        }
    }

    /** The i-th request's body: trips with and without a car, 0 to 3 attractions. */
    public static String request(int i, String user) {
        return "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
                + "<tp:planTrip xmlns:tp=\"urn:moses:trip-planner\"><tp:customer>" + user + "</tp:customer>"
                + "<tp:destination>" + (i % 3 == 0 ? "Rome" : i % 3 == 1 ? "Paris" : "Lisbon") + "</tp:destination>"
                + "<tp:departure>2026-07-0" + (1 + i % 9) + "</tp:departure><tp:nights>" + (1 + i % 5) + "</tp:nights>"
                + "<tp:needsCar>" + (i % 2 == 0) + "</tp:needsCar><tp:attractions>" + (i % 4) + "</tp:attractions>"
                + "</tp:planTrip></soap:Body></soap:Envelope>";
    }

    /** Which concrete service answered how often, from the broker's own metrics. */
    public static String answeredBy(String metrics) {
        Pattern p = Pattern.compile("^moses_concrete_invokes_seconds_count\\{([^}]*)\\} ([0-9.E]+)", Pattern.MULTILINE);
        Map<String, Map<String, Long>> byTask = new TreeMap<>();
        Matcher m = p.matcher(metrics);
        while (m.find()) {
            Map<String, String> tags = new TreeMap<>();
            for (String kv : m.group(1).split(",")) {
                int eq = kv.indexOf('=');
                tags.put(kv.substring(0, eq), kv.substring(eq + 2, kv.length() - 1));
            }
            String key = tags.get("service") + (tags.get("outcome").equals("ok") ? "" : " (" + tags.get("outcome") + ")");
            byTask.computeIfAbsent(tags.get("task"), k -> new TreeMap<>()).merge(key, (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        StringBuilder out = new StringBuilder("which concrete service answered (invokes per task, from /metrics):\n");
        byTask.forEach((task, services) -> {
            out.append(String.format("  %-26s", task));
            services.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                    .forEach(e -> out.append(String.format("  %s %d", e.getKey(), e.getValue())));
            out.append('\n');
        });
        return out.toString().stripTrailing();
    }

    public static String fetch(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", operator())
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("GET " + url + ": HTTP " + r.statusCode() + " " + r.body());
        return r.body();
    }

    /** PUT of a JSON body to the admin API, as the seed's operator; the answer's body. */
    static String put(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", operator())
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("PUT " + url + ": HTTP " + r.statusCode() + " " + r.body());
        return r.body();
    }

    /** The seed's operator's Authorization header. */
    private static String operator() {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((OPERATOR[0] + ":" + OPERATOR[1]).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static String mask(String db) {
        return db.replaceAll("(?i)((?:password[0-9]*|pwd)=)[^&;]*", "$1***").replaceAll("//([^:/@]+):[^@/]*@", "//$1:***@");
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static int positive(String[] args, int i) {
        String v = value(args, i);
        try {
            int n = Integer.parseInt(v);
            if (n > 0) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        usage(args[i - 1] + " needs a positive whole number, got '" + v + "'");
        return 0;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) usage(args[i - 1] + " needs a value");
        return args[i];
    }

    private static void usage(String problem) {
        System.err.println("moses demo: " + problem);
        System.err.println("usage: moses demo [--requests N] [--clients N] [--db SPEC] [--scenario steady|degrade|ramp] [--seed FILE] [--trace] [--keep-logs]");
        System.exit(2);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
