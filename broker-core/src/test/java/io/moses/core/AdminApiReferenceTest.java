package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.docs.Markdown;
import io.moses.core.loop.Adaptation;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/admin-api.md against a broker: every row's request is sent without credentials (401),
 * as a user who is no operator (403) and as an operator, with names of nothing and empty bodies,
 * so that nothing changes: the operator's answer must come from the path's own servlet (not the
 * answer for a path nobody serves, not 405) with a status the row lists. And every path the
 * broker mounts, and every path its admin servlet names in its 404 answers, has a row.
 */
@Tag("e2e")
class AdminApiReferenceTest {
    static final Path PAGE = Markdown.ROOT.resolve("docs/admin-api.md");
    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes());
    static final String USER = "Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes());
    /** What the admin servlets answer for a path or method they do not serve. */
    static final Pattern NOT_SERVED = Pattern.compile("no admin (resource|action)|\\(use /admin/|use (POST )?/admin/|sets a password\"|name the class:"
            + "|adds a service; use PUT|subscribes a new user;");

    record Row(String method, String path, Set<Integer> errors) {
        /** The request's path: a name of nothing for each {placeholder}, a number for an id. */
        String request() {
            return path.replace("{id}", "999999999").replaceAll("\\{[a-z]+\\}", "no-such-thing");
        }

        /** The path as the servlets' hints spell it: NAME for every placeholder. */
        String shape() {
            return method + " " + path.replaceAll("\\{[a-z]+\\}", "NAME");
        }
    }

    static List<Row> rows() throws Exception {
        List<Row> rows = new ArrayList<>();
        for (List<String> cells : Markdown.table(PAGE, "Paths")) {
            Set<Integer> errors = new TreeSet<>();
            Matcher m = Pattern.compile("\\b([45]\\d\\d)\\b").matcher(cells.get(3));
            while (m.find()) errors.add(Integer.parseInt(m.group(1)));
            List<String> path = Markdown.code(cells.get(1));
            assertTrue(path.size() == 1 && path.get(0).startsWith("/admin/"), "one /admin path per row: " + cells);
            rows.add(new Row(cells.get(0), path.get(0), errors));
        }
        return rows;
    }

    @Test
    void everyRowIsServedAndEveryServedPathHasARow(@TempDir Path work) throws Exception {
        List<Row> rows = rows();
        assertTrue(rows.size() >= 30, "rows of docs/admin-api.md: " + rows.size());
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        List<String> wrong = new ArrayList<>();
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.defaults().withMonitors(true, false, true)).withPort(0)
                    .withWorkDir(work).withDb("mem:admin-api-reference").withSeeds(List.of(work.resolve("seed.yaml")))
                    .withVariables(Map.of("PARTNER", partner.url(""))).withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            try (Broker broker = new Broker(config)) {
                broker.start();
                int port = broker.port();
                for (Row row : rows) {
                    String body = row.method().equals("GET") || row.method().equals("DELETE") ? null : "{}";
                    Map<String, String> json = body == null ? Map.of() : Map.of("Content-Type", "application/json");
                    int anonymous = AdminApiTest.send(port, row.method(), row.request(), null, json, body).statusCode();
                    if (anonymous != 401) wrong.add(row.shape() + ": " + anonymous + " without credentials, not 401");
                    int user = AdminApiTest.send(port, row.method(), row.request(), USER, json, body).statusCode();
                    if (user != 403) wrong.add(row.shape() + ": " + user + " for a user who is no operator, not 403");
                    HttpResponse<String> r = AdminApiTest.send(port, row.method(), row.request(), OPERATOR, json, body);
                    int status = r.statusCode();
                    if (status == 405 || NOT_SERVED.matcher(r.body()).find())
                        wrong.add(row.shape() + ": not served (" + status + " " + r.body().replaceAll("\\s+", " ").strip() + ")");
                    else if (status >= 400 && !row.errors().contains(status))
                        wrong.add(row.shape() + ": " + status + ", which the row's errors " + row.errors() + " do not list (" + r.body().replaceAll("\\s+", " ").strip() + ")");
                }
                // the paths the admin servlet names when it serves none: each has its row
                Set<String> shapes = new LinkedHashSet<>();
                for (Row row : rows) shapes.add(row.shape());
                for (String method : List.of("GET", "POST")) {
                    String hint = AdminApiTest.send(port, method, "/admin/no-such-thing", OPERATOR, Map.of(), method.equals("POST") ? "{}" : null).body();
                    int tried = hint.indexOf("(try ");
                    assertTrue(tried > 0, method + " of an unknown admin path names the paths there are: " + hint);
                    Matcher m = Pattern.compile("(/admin/[A-Za-z/|-]+)").matcher(hint.substring(tried));
                    assertTrue(m.find(), method + " of an unknown admin path names the paths there are: " + hint);
                    do {
                        for (String path : expand(m.group(1)))
                            if (!shapes.contains(method + " " + path)) wrong.add(method + " " + path + ": the broker serves it, docs/admin-api.md has no row");
                    } while (m.find());
                }
            }
        }
        // every path the broker mounts under /admin has rows
        for (String source : List.of("src/main/java/io/moses/core/Broker.java", "src/main/java/io/moses/core/Management.java")) {
            Matcher m = Pattern.compile("mount\\(\"(/admin/[a-z-]+)").matcher(Files.readString(Path.of(source)));
            while (m.find()) {
                String mounted = m.group(1);
                if (rows.stream().noneMatch(r -> r.path().startsWith(mounted))) wrong.add(mounted + " is mounted (" + source + "), docs/admin-api.md has no row");
            }
        }
        assertTrue(wrong.isEmpty(), "docs/admin-api.md against the broker:\n" + String.join("\n", wrong));
    }

    /** {@code /admin/monitors/NAME/on|off} is two paths. */
    static List<String> expand(String hint) {
        Matcher alt = Pattern.compile("^(.*/)([a-z-]+(?:\\|[a-z-]+)+)$").matcher(hint);
        if (!alt.matches()) return List.of(hint);
        List<String> out = new ArrayList<>();
        for (String a : alt.group(2).split("\\|")) out.add(alt.group(1) + a);
        return out;
    }
}
