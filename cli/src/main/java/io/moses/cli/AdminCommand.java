package io.moses.cli;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code moses admin [--broker URL] [--user OPERATOR] ACTION}: the operator's actions and reads
 * on a running broker, through the same admin API the console uses. The password comes from
 * {@code MOSES_PASSWORD} (not the command line, where {@code ps} shows it); the name from
 * {@code --user} or {@code MOSES_USER}. Prints the API's JSON answer; {@code processes deploy},
 * {@code redeploy} and {@code undeploy} are {@link ProcessesCommand}'s, {@code instances} {@link InstancesCommand}'s.
 */
public final class AdminCommand {
    private AdminCommand() {}

    static final String USAGE = """
            usage: moses admin [--broker URL] [--user OPERATOR] [--timeout SECONDS] ACTION   (password from MOSES_PASSWORD)
              replan [REASON]              ask the optimizer for a new plan now
              monitor NAME on|off          switch a monitor (qos-monitor, ws-monitor) on or off
              service NAME out|in          take a concrete service out of the plans, or put it back in
              status | concrete-services | compliance | composites | events   read the admin API (JSON)
              processes                    the deployment units, each replica's version of each, each process's mode (JSON)
              processes deploy DIR         zip the deployment unit DIR (deploy.xml, .bpel, WSDLs) and deploy it as unit
                                           NAME, DIR's name; waits until every replica applied it (--timeout SECONDS,
                                           default 60), then prints its services' WSDL URLs and each process's mode
              processes redeploy DIR       the same for a new version of the deployed unit named as DIR
              processes undeploy NAME [--terminate]   undeploy unit NAME, waiting until every replica has applied
                                           that; refused while durable instances of it are unfinished, unless
                                           --terminate ends them first
              instances [list] [--process P] [--state S] [--limit N]   durable process instances, newest first (a table)
              instances show ID            one instance: its state, correlation values, what it waits for, its variables
              instances suspend|resume|terminate ID   stop an instance running, let it run again, or end it
              users password NAME [--password-file F]   reset NAME's password (asked twice, or the first line of F)""";

    public static void main(String[] args) {
        String broker = "http://127.0.0.1:8080";
        String user = System.getenv("MOSES_USER");
        String passwordFile = null;
        Duration timeout = Duration.ofSeconds(60);
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--broker" -> broker = value(args, ++i, "--broker needs a URL");
                case "--user" -> user = value(args, ++i, "--user needs a name");
                case "--password-file" -> passwordFile = value(args, ++i, "--password-file needs a file");
                case "--timeout" -> timeout = seconds(value(args, ++i, "--timeout needs seconds"));
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> rest.add(args[i]);
            }
        }
        if (rest.isEmpty()) fail("no action\n" + USAGE);
        if (rest.get(0).equals("processes") && rest.size() > 1) {
            System.exit(ProcessesCommand.run(api(broker, user), rest.subList(1, rest.size()), timeout));
            return;
        }
        if (rest.get(0).equals("instances")) {
            System.exit(InstancesCommand.run(api(broker, user), rest.subList(1, rest.size())));
            return;
        }
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
            HttpResponse<String> r = api(broker, user).send(method, path,
                    body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body), "application/json",
                    Duration.ofSeconds(10));
            if (r.statusCode() == 401) fail(NEEDS_OPERATOR + r.body());
            if (r.statusCode() != 200) fail("broker answered HTTP " + r.statusCode() + ": " + r.body());
            System.out.println(r.body());
        } catch (Exception e) {
            fail("cannot reach the broker at " + broker + ": " + e);
        }
    }

    static final String NEEDS_OPERATOR = "the admin API needs an operator: --user NAME (or MOSES_USER) and MOSES_PASSWORD; broker said ";

    private static AdminApi api(String broker, String user) {
        String password = System.getenv("MOSES_PASSWORD");
        if (user != null && password == null) fail("--user " + user + ": set MOSES_PASSWORD to the operator's password");
        return new AdminApi(broker, user, password);
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

    private static Duration seconds(String s) {
        try {
            long n = Long.parseLong(s);
            if (n > 0) return Duration.ofSeconds(n);
        } catch (NumberFormatException ignored) {
            // said below
        }
        fail("--timeout takes whole seconds above 0, was " + s);
        return null;
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
