package io.moses.core.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.operations.PlanFormat;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code moses plan [--broker URL] [--user NAME] [--json] [--history [N]] [--what-if CHANGE]...}: the
 * plan of a running broker; with {@code --what-if}, the plan in force and the plan the optimizer
 * would make after the changes side by side ({@link WhatIfView}), nothing applied. The admin API requires an operator: the name from {@code --user} or {@code MOSES_USER},
 * the password from {@code MOSES_PASSWORD} (not on the command line, where {@code ps} shows it).
 */
public final class PlanCommand {
    private PlanCommand() {}

    public static void main(String[] args) {
        String broker = "http://127.0.0.1:8080";
        boolean json = false;
        int history = 0;
        java.util.List<String> whatIf = new java.util.ArrayList<>();
        String user = System.getenv("MOSES_USER") == null || System.getenv("MOSES_USER").isBlank() ? null : System.getenv("MOSES_USER");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--user" -> {
                    if (++i >= args.length) fail("--user needs a name");
                    user = args[i];
                }
                case "--broker" -> {
                    if (++i >= args.length) fail("--broker needs a URL");
                    broker = args[i];
                }
                case "--json" -> json = true;
                case "--what-if" -> {
                    if (++i >= args.length) fail("--what-if needs a change, e.g. 'down hotel-b' or 'slower flight-a 2x'");
                    whatIf.add(args[i]);
                }
                case "--history" -> history = i + 1 < args.length && args[i + 1].matches("\\d+") ? Integer.parseInt(args[++i]) : 10;
                default -> fail("unknown option " + args[i] + "\nusage: moses plan [--broker URL] [--user OPERATOR] [--json] [--history [N]] [--what-if CHANGE]..."
                        + "\n  (the operator's password comes from MOSES_PASSWORD)");
            }
        }
        String path = !whatIf.isEmpty() ? "/admin/what-if" : history > 0 ? "/admin/plans?n=" + history : "/admin/plan";
        String body;
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(broker.replaceAll("/+$", "") + path)).timeout(Duration.ofSeconds(whatIf.isEmpty() ? 10 : 60));
            if (!whatIf.isEmpty())
                request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        new ObjectMapper().writeValueAsString(java.util.Map.of("changes", whatIf))));
            if (user != null) {
                String password = System.getenv("MOSES_PASSWORD");
                if (password == null) fail("--user " + user + ": set MOSES_PASSWORD to the operator's password");
                request.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build().send(request.build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 401) fail("the admin API needs an operator: --user NAME (or MOSES_USER) and MOSES_PASSWORD; broker said " + r.body());
            if (r.statusCode() != 200) fail("broker answered HTTP " + r.statusCode() + ": " + r.body());
            body = r.body();
        } catch (Exception e) {
            fail("cannot reach the broker at " + broker + ": " + e);
            return;
        }
        if (json) {
            System.out.println(body);
            return;
        }
        try {
            JsonNode node = new ObjectMapper().readTree(body);
            if (!whatIf.isEmpty()) System.out.print(WhatIfView.sideBySide(node));
            else if (node.isArray()) for (JsonNode p : node) System.out.println(table(p));
            else System.out.println(table(node));
        } catch (Exception e) {
            fail("unreadable answer: " + e.getMessage());
        }
    }

    static String table(JsonNode p) {
        return PlanFormat.table(PlanFormat.fromTree(p));
    }

    private static void fail(String message) {
        System.err.println("moses plan: " + message);
        System.exit(2);
    }
}
