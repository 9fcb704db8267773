package io.moses.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * {@code moses admin [--broker URL] [--user OPERATOR] ACTION}: the operator's actions and reads
 * on a running broker, through the same admin API the console uses. The password comes from
 * {@code MOSES_PASSWORD} (not the command line, where {@code ps} shows it); the name from
 * {@code --user} or {@code MOSES_USER}. Prints the API's JSON answer.
 */
public final class AdminCommand {
    private AdminCommand() {}

    static final String USAGE = """
            usage: moses admin [--broker URL] [--user OPERATOR] ACTION   (password from MOSES_PASSWORD)
              replan [REASON]              ask the optimizer for a new plan now
              monitor NAME on|off          switch a monitor (qos-monitor, ws-monitor) on or off
              service NAME out|in          take a concrete service out of the plans, or put it back in
              status | concrete-services | compliance | composites | events   read the admin API (JSON)
              processes                    the deployment units, each replica's version of each (JSON)
              users password NAME [--password-file F]   reset NAME's password (asked twice, or the first line of F)""";

    public static void main(String[] args) {
        String broker = "http://127.0.0.1:8080";
        String user = System.getenv("MOSES_USER");
        String passwordFile = null;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--broker" -> broker = value(args, ++i, "--broker needs a URL");
                case "--user" -> user = value(args, ++i, "--user needs a name");
                case "--password-file" -> passwordFile = value(args, ++i, "--password-file needs a file");
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty()) fail("no action\n" + USAGE);
        String method = "POST", path, body = null;
        switch (rest.get(0)) {
            case "replan" -> {
                path = "/admin/replan";
                String reason = String.join(" ", rest.subList(1, rest.size())).replaceAll("\\p{Cntrl}", " ")
                        .replace("\\", "\\\\").replace("\"", "\\\"");
                body = "{\"reason\":\"" + reason + "\"}";
            }
            case "monitor" -> {
                if (rest.size() != 3 || !rest.get(2).matches("on|off")) fail("monitor NAME on|off\n" + USAGE);
                path = "/admin/monitors/" + rest.get(1) + "/" + rest.get(2);
            }
            case "service" -> {
                if (rest.size() != 3 || !rest.get(2).matches("out|in")) fail("service NAME out|in\n" + USAGE);
                path = "/admin/concrete-services/" + rest.get(1) + "/" + rest.get(2);
            }
            case "status", "concrete-services", "compliance", "classes", "composites", "events", "processes" -> {
                if (rest.size() != 1) fail(rest.get(0) + " takes no arguments\n" + USAGE);
                method = "GET";
                path = "/admin/" + rest.get(0);
            }
            case "users" -> {
                if (rest.size() != 3 || !rest.get(1).equals("password")) fail("users password NAME\n" + USAGE);
                method = "PUT";
                path = "/admin/users/" + rest.get(2) + "/password";
                if (!path.matches("/admin/[A-Za-z0-9._@/-]+")) fail("a user name has characters a name cannot have: " + rest.get(2));
                body = "{\"password\":" + jsonString(CommandLine.newPassword(passwordFile, rest.get(2), USAGE)) + "}";
            }
            default -> {
                fail("unknown action " + rest.get(0) + "\n" + USAGE);
                return;
            }
        }
        if (!path.matches("/admin/[A-Za-z0-9._@/-]+")) fail("a service or monitor name has characters a name cannot have: " + path);
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(broker.replaceAll("/+$", "") + path)).timeout(Duration.ofSeconds(10))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                    .header("Content-Type", "application/json");
            if (user != null) {
                String password = System.getenv("MOSES_PASSWORD");
                if (password == null) fail("--user " + user + ": set MOSES_PASSWORD to the operator's password");
                request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
            }
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()
                    .send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 401) fail("the admin API needs an operator: --user NAME (or MOSES_USER) and MOSES_PASSWORD; broker said " + r.body());
            if (r.statusCode() != 200) fail("broker answered HTTP " + r.statusCode() + ": " + r.body());
            System.out.println(r.body());
        } catch (Exception e) {
            fail("cannot reach the broker at " + broker + ": " + e);
        }
    }

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private static String value(String[] args, int i, String missing) {
        if (i >= args.length) fail(missing);
        return args[i];
    }

    private static void fail(String message) {
        System.err.println("moses admin: " + message);
        System.exit(2);
    }
}
