package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The monitoring files an operator installs as they are (monitoring/): Prometheus's alerting
 * rules pass {@code promtool check rules} and their own unit tests ({@code promtool test rules}),
 * each alert is tested firing and quiet, the unit tests catch a changed rule, and the Grafana
 * dashboard is one provisioning loads. That every metric they name exists: {@link MonitoringMetricsEndToEndTest}.
 */
class MonitoringFilesTest {
    static final Path MONITORING = DockerComposeTest.ROOT.resolve("monitoring");
    static final Path PROMETHEUS = MONITORING.resolve("prometheus");
    static final Path DASHBOARD = MONITORING.resolve("grafana/dashboards/moses.json");
    static final ObjectMapper JSON = new ObjectMapper();
    /** A metric of the broker's /metrics in a PromQL expression: the broker's own, the JVM's and the process's. */
    static final Pattern METRIC = Pattern.compile("\\b(?:moses|jvm|process|system)_[a-z0-9_]*[a-z0-9]\\b");

    /** Every PromQL expression of the rules and the dashboard (its panels' queries and its variables'). */
    static List<String> expressions() throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode group : DockerComposeTest.YAML.readTree(PROMETHEUS.resolve("rules.yml").toFile()).path("groups"))
            for (JsonNode rule : group.path("rules")) out.add(rule.path("expr").asText());
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        for (JsonNode panel : dashboard.path("panels")) for (JsonNode t : panel.path("targets")) out.add(t.path("expr").asText());
        for (JsonNode v : dashboard.path("templating").path("list"))
            if (v.path("type").asText().equals("query")) out.add(v.path("query").path("query").asText());
        return out;
    }

    /** The metric names the rules and the dashboard use. */
    static Set<String> metricNames() throws Exception {
        Set<String> names = new TreeSet<>();
        for (String e : expressions()) {
            Matcher m = METRIC.matcher(e);
            while (m.find()) names.add(m.group());
        }
        return names;
    }

    static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) return true;
        return false;
    }

    /** Aborts the test without promtool (fails it on CI, where .ci/run installs it). */
    static void requirePromtool() {
        if (onPath("promtool")) return;
        String reason = "needs promtool (apt-get install prometheus)";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(reason + " [CI=true: not skipping]");
        Assumptions.abort(reason);
    }

    record Run(int exit, String out) {}

    static Run promtool(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()); // to its end: promtool has exited
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool " + String.join(" ", args) + " did not end");
        return new Run(p.exitValue(), out);
    }

    @Test
    void theRulesAndPrometheusConfigurationPassPromtoolsChecks() throws Exception {
        requirePromtool();
        Run rules = promtool(PROMETHEUS, "check", "rules", "rules.yml");
        assertEquals(0, rules.exit(), rules.out());
        assertTrue(rules.out().contains("SUCCESS: " + alerts().size() + " rules found"), rules.out());
        // the compose file's configuration: the scrape of both replicas, the rules beside it
        Run config = promtool(PROMETHEUS, "check", "config", "prometheus.yml");
        assertEquals(0, config.exit(), config.out());
        assertTrue(config.out().contains("SUCCESS: 1 rule files found"), config.out());
        String prometheus = Files.readString(PROMETHEUS.resolve("prometheus.yml"));
        assertTrue(prometheus.contains("job_name: moses") && prometheus.contains("'broker-1:8080', 'broker-2:8080'"), prometheus);
    }

    @Test
    void theRulesPassTheirUnitTests() throws Exception {
        requirePromtool();
        Run run = promtool(PROMETHEUS, "test", "rules", "rules.test.yml");
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.out().contains("SUCCESS"), run.out());
    }

    /** The unit tests have teeth: a rule that waits longer, or compares the other way, fails them. */
    @Test
    void theUnitTestsFailOnAChangedRule(@TempDir Path dir) throws Exception {
        requirePromtool();
        String rules = Files.readString(PROMETHEUS.resolve("rules.yml"));
        Files.copy(PROMETHEUS.resolve("rules.test.yml"), dir.resolve("rules.test.yml"));
        for (String[] change : List.of(
                new String[] {"expr: moses_knowledge_base_up == 0\n        for: 1m", "expr: moses_knowledge_base_up == 0\n        for: 5m"},
                new String[] {"moses_class_availability < moses_class_min_availability", "moses_class_availability > moses_class_min_availability"},
                new String[] {"sum by (job) (moses_optimizer_leader) < 1", "max by (instance) (moses_optimizer_leader) < 1"})) {
            assertTrue(rules.contains(change[0]), change[0]);
            Files.writeString(dir.resolve("rules.yml"), rules.replace(change[0], change[1]));
            Run run = promtool(dir, "test", "rules", "rules.test.yml");
            assertNotEquals(0, run.exit(), "the unit tests pass with " + change[1] + ": " + run.out());
            assertTrue(run.out().contains("FAILED"), run.out());
        }
    }

    /** Every panel's query is valid PromQL: promtool parses it as a recording rule, Grafana's variables filled in. */
    @Test
    void theDashboardsQueriesParse(@TempDir Path dir) throws Exception {
        requirePromtool();
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int n = 0;
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).path("panels"))
            for (JsonNode t : panel.path("targets")) {
                String expr = t.path("expr").asText().replace("$__rate_interval", "1m").replace("$__range", "1h")
                        .replace("$instance", ".*").replace("$class", ".*");
                assertFalse(expr.contains("$"), "a variable the test does not know: " + expr);
                rules.append("      - record: dashboard_query_").append(n++).append("\n        expr: ")
                        .append(JSON.writeValueAsString(expr)).append('\n');
            }
        Files.writeString(dir.resolve("dashboard.yml"), rules.toString());
        Run run = promtool(dir, "check", "rules", "dashboard.yml");
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.out().contains("SUCCESS: " + n + " rules found"), run.out());
    }

    /** Alert name to its rule. */
    static java.util.Map<String, JsonNode> alerts() throws Exception {
        java.util.Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (JsonNode group : DockerComposeTest.YAML.readTree(PROMETHEUS.resolve("rules.yml").toFile()).path("groups"))
            for (JsonNode rule : group.path("rules")) out.put(rule.path("alert").asText(), rule);
        return out;
    }

    @Test
    void everyAlertIsTestedFiringAndQuietAndDocumented() throws Exception {
        var alerts = alerts();
        // what the operator is told about: SLAs broken and predicted, providers, the knowledge base, the leader, the replicas
        assertEquals(Set.of("MosesClassResponseTimeOverSla", "MosesClassAvailabilityUnderSla", "MosesSlaViolationPredicted",
                "MosesProviderDown", "MosesProviderEjected", "MosesKnowledgeBaseDown", "MosesNoOptimizerLeader", "MosesReplicaNotReady",
                "MosesReplicaDown"),
                alerts.keySet());
        Set<String> firing = new HashSet<>(), quiet = new HashSet<>();
        for (JsonNode test : DockerComposeTest.YAML.readTree(PROMETHEUS.resolve("rules.test.yml").toFile()).path("tests"))
            for (JsonNode t : test.path("alert_rule_test"))
                (t.path("exp_alerts").isEmpty() ? quiet : firing).add(t.path("alertname").asText());
        String docs = Files.readString(DockerComposeTest.ROOT.resolve("docs/monitoring.md"));
        alerts.forEach((name, rule) -> {
            assertTrue(firing.contains(name), name + " is never tested firing");
            assertTrue(quiet.contains(name), name + " is never tested quiet");
            assertTrue(Set.of("critical", "warning").contains(rule.path("labels").path("severity").asText()), name + " has a severity");
            assertFalse(rule.path("annotations").path("summary").asText().isBlank(), name + " has a summary");
            assertFalse(rule.path("annotations").path("description").asText().isBlank(), name + " has a description");
            assertTrue(docs.contains("`" + name + "`"), "docs/monitoring.md says what " + name + " means and what to do");
        });
    }

    @Test
    void theDashboardIsOneGrafanaProvisions() throws Exception {
        JsonNode d = JSON.readTree(DASHBOARD.toFile());
        assertEquals("moses-broker", d.path("uid").asText());
        JsonNode datasource = DockerComposeTest.YAML.readTree(MONITORING.resolve("grafana/provisioning/datasources/prometheus.yml").toFile())
                .path("datasources").get(0);
        assertEquals("prometheus", datasource.path("type").asText());
        assertEquals("http://prometheus:9090", datasource.path("url").asText(), "the compose file's Prometheus");
        // the panels query the dashboard's datasource variable, whose default is the provisioned datasource
        JsonNode variable = d.path("templating").path("list").get(0);
        assertEquals("datasource", variable.path("type").asText());
        assertEquals(datasource.path("uid").asText(), variable.path("current").path("value").asText());
        Set<Integer> ids = new HashSet<>();
        Set<String> titles = new TreeSet<>();
        int queried = 0;
        for (JsonNode p : d.path("panels")) {
            assertTrue(ids.add(p.path("id").asInt()), "panel id " + p.path("id") + " twice");
            JsonNode g = p.path("gridPos");
            assertTrue(g.path("x").asInt() >= 0 && g.path("x").asInt() + g.path("w").asInt() <= 24 && g.path("h").asInt() > 0, p.path("title") + ": " + g);
            if (p.path("type").asText().equals("row")) {
                titles.add(p.path("title").asText());
                continue;
            }
            assertFalse(p.path("targets").isEmpty(), p.path("title") + " queries nothing");
            for (JsonNode t : p.path("targets")) {
                assertEquals("${datasource}", t.path("datasource").path("uid").asText(), p.path("title").asText());
                assertFalse(t.path("expr").asText().isBlank(), p.path("title").asText());
                queried++;
            }
        }
        assertTrue(queried > 30, queried + " queries");
        for (String part : List.of("SLA per class", "Concrete services (providers)", "Plans", "Admissions and shedding", "Replicas", "JVM and process"))
            assertTrue(titles.contains(part), "a row " + part + " in " + titles);
        // the provisioning's dashboard folder is where the compose file mounts the dashboards
        String provider = Files.readString(MONITORING.resolve("grafana/provisioning/dashboards/moses.yml"));
        assertTrue(provider.contains("path: /var/lib/grafana/dashboards"), provider);
    }

    /** The names the other tests check are the ones the files use: a pattern that stopped matching would check nothing. */
    @Test
    void theNamesFoundAreTheFilesMetrics() throws Exception {
        Set<String> names = metricNames();
        for (String expected : List.of("moses_class_sla_met", "moses_class_response_time_seconds", "moses_class_max_response_time_seconds",
                "moses_concrete_up", "moses_concrete_ejected", "moses_sla_predicted_total", "moses_plan_version", "moses_admission_shed_total",
                "moses_policing_class_requests_total", "moses_composite_requests_seconds_bucket", "moses_knowledge_base_up",
                "moses_optimizer_leader", "moses_replica_ready", "jvm_memory_used_bytes"))
            assertTrue(names.contains(expected), expected + " not found in " + names);
        // documented for the operator too
        String docs = Files.readString(DockerComposeTest.ROOT.resolve("docs/metrics.md"));
        for (String n : names) {
            String base = n.replaceAll("_(bucket|count|sum|max)$", "");
            assertTrue(docs.contains("`" + base + "`"), n + " is not in docs/metrics.md");
        }
    }
}
