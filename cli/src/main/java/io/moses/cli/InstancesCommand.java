package io.moses.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code moses admin instances [list [--process P] [--state S] [--limit N]]}, {@code show ID},
 * {@code suspend ID}, {@code resume ID}, {@code terminate ID}: durable process instances through
 * {@code /admin/instances}. A list is a table, newest first; show prints the instance, what it
 * waits for and its variables. Exits 0 when done, 1 when the broker refused it (no such instance,
 * a state that does not allow the action), 2 on bad input.
 */
final class InstancesCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private InstancesCommand() {}

    /** @param args the action and its arguments; none: list */
    static int run(AdminApi api, List<String> args) {
        String action = args.isEmpty() ? "list" : args.get(0);
        try {
            if (action.equals("list")) return list(api, args.subList(Math.min(1, args.size()), args.size()));
            if (!List.of("show", "suspend", "resume", "terminate").contains(action))
                return bad("unknown instances action " + action + " (list, show ID, suspend ID, resume ID, terminate ID)");
            if (args.size() != 2 || !args.get(1).matches("\\d{1,18}")) return bad("instances " + action + " takes one instance id (a number)");
            String id = args.get(1);
            if (action.equals("show")) return show(api, id);
            HttpResponse<String> r = api.send("POST", "/admin/instances/" + id + "/" + action, HttpRequest.BodyPublishers.noBody(),
                    "application/json", TIMEOUT);
            if (r.statusCode() != 200) return refused(r);
            JsonNode i = JSON.readTree(r.body());
            System.out.println("instance " + id + " " + (action.equals("suspend") ? "suspended" : action.equals("resume") ? "resumed" : "terminated")
                    + ": now " + i.path("state").asText());
            return 0;
        } catch (IOException e) {
            return failed("cannot reach the broker at " + api.broker + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        }
    }

    private static int list(AdminApi api, List<String> options) throws IOException, InterruptedException {
        List<String> query = new ArrayList<>();
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            if (!List.of("--process", "--state", "--limit").contains(o) || i + 1 >= options.size())
                return bad("instances list takes --process P, --state S and --limit N, got " + o);
            query.add(o.substring(2) + "=" + URLEncoder.encode(options.get(++i), StandardCharsets.UTF_8));
        }
        HttpResponse<String> r = api.send("GET", "/admin/instances" + (query.isEmpty() ? "" : "?" + String.join("&", query)),
                HttpRequest.BodyPublishers.noBody(), "application/json", TIMEOUT);
        if (r.statusCode() != 200) return refused(r);
        JsonNode instances = JSON.readTree(r.body()).path("instances");
        if (instances.isEmpty()) {
            System.out.println("no durable instances (instances of in-memory processes are not listed)");
            return 0;
        }
        String format = "%-8s %-11s %-28s %-24s %-24s %-20s %s%n";
        System.out.printf(format, "ID", "STATE", "PROCESS", "STARTED", "LAST ACTIVE", "OWNER", "CORRELATION");
        for (JsonNode i : instances)
            System.out.printf(format, i.path("id").asText(), i.path("state").asText(), localName(i.path("process").asText()),
                    i.path("started").asText("-"), i.path("lastActive").asText("-"), i.path("owner").asText("-"), correlation(i));
        return 0;
    }

    private static int show(AdminApi api, String id) throws IOException, InterruptedException {
        HttpResponse<String> r = api.send("GET", "/admin/instances/" + id, HttpRequest.BodyPublishers.noBody(), "application/json", TIMEOUT);
        if (r.statusCode() != 200) return refused(r);
        JsonNode i = JSON.readTree(r.body());
        System.out.println("instance " + i.path("id").asText() + " of " + i.path("process").asText() + " version " + i.path("version").asText()
                + ": " + i.path("state").asText());
        System.out.println("started " + i.path("started").asText("-") + ", last active " + i.path("lastActive").asText("-")
                + ", owner " + i.path("owner").asText("-"));
        System.out.println("correlation: " + correlation(i));
        JsonNode fault = i.path("fault");
        if (!fault.isMissingNode())
            System.out.println("ended with the fault " + fault.path("name").asText() + " at line " + fault.path("line").asText()
                    + (fault.path("explanation").isTextual() ? ": " + fault.path("explanation").asText() : ""));
        if (i.path("waitsFor").isEmpty()) System.out.println("waits for nothing");
        for (JsonNode w : i.path("waitsFor"))
            System.out.println("waits for " + w.path("kind").asText() + " " + w.path("what").asText("")
                    + (w.has("key") ? " key " + w.path("key").asText() : "") + (w.has("due") ? " due " + w.path("due").asText() : ""));
        for (Iterator<Map.Entry<String, JsonNode>> v = i.path("variables").fields(); v.hasNext(); ) {
            Map.Entry<String, JsonNode> e = v.next();
            System.out.println("variable " + e.getKey() + ":");
            System.out.println("  " + e.getValue().asText().strip().replace("\n", "\n  "));
        }
        return 0;
    }

    /** "order: orderId=o-1" for each set, or "-". */
    private static String correlation(JsonNode i) {
        List<String> sets = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> s = i.path("correlation").fields(); s.hasNext(); ) {
            Map.Entry<String, JsonNode> set = s.next();
            List<String> values = new ArrayList<>();
            set.getValue().fields().forEachRemaining(p -> values.add(p.getKey() + "=" + p.getValue().asText()));
            sets.add(set.getKey() + ": " + String.join(", ", values));
        }
        return sets.isEmpty() ? "-" : String.join("; ", sets);
    }

    private static String localName(String qname) {
        int end = qname.indexOf('}');
        return end < 0 ? qname : qname.substring(end + 1);
    }

    private static int refused(HttpResponse<String> r) {
        if (r.statusCode() == 401) return failed(AdminCommand.NEEDS_OPERATOR + r.body());
        String reason;
        try {
            reason = JSON.readTree(r.body()).path("error").asText(r.body());
        } catch (IOException e) {
            reason = r.body(); // not the admin API's JSON: a proxy's page
        }
        return failed("refused (HTTP " + r.statusCode() + "): " + reason.strip());
    }

    private static int bad(String message) {
        System.err.println("moses admin: " + message);
        return 2;
    }

    private static int failed(String message) {
        System.err.println("moses admin: " + message);
        return 1;
    }
}
