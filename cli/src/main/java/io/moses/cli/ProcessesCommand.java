package io.moses.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * {@code moses admin processes deploy DIR}, {@code redeploy DIR} and {@code undeploy NAME [--terminate]}: the
 * unit directory is zipped here and sent to {@code /admin/processes/NAME} (NAME is the
 * directory's name, as the broker names a unit), then {@code /admin/processes} is read until
 * every replica that reports on the stored units has applied that version, or the timeout.
 * Exits 0 when done, 1 when the broker refused it or a replica did not apply it, 2 on bad input.
 */
final class ProcessesCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(200);
    /** The broker's rule for a unit's name (Bundle.checkName), checked here so that a bad name is one line, not a URI error. */
    private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

    private ProcessesCommand() {}

    /** @param args the action and its argument: deploy DIR, redeploy DIR or undeploy NAME [--terminate] */
    static int run(AdminApi api, List<String> args, Duration timeout) {
        String action = args.get(0);
        if (!List.of("deploy", "redeploy", "undeploy").contains(action))
            return bad("unknown processes action " + action + " (deploy DIR, redeploy DIR, undeploy NAME)");
        boolean terminate = action.equals("undeploy") && args.size() == 3 && args.get(2).equals("--terminate");
        if (args.size() != (terminate ? 3 : 2))
            return bad("processes " + action + " takes one " + (action.equals("undeploy") ? "unit name (and --terminate)" : "directory"));
        try {
            return action.equals("undeploy") ? undeploy(api, args.get(1), terminate, timeout)
                    : change(api, action.equals("deploy"), Path.of(args.get(1)), timeout);
        } catch (IOException e) {
            return failed("cannot reach the broker at " + api.broker + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        }
    }

    private static int change(AdminApi api, boolean deploy, Path dir, Duration timeout) throws IOException, InterruptedException {
        if (!Files.isDirectory(dir)) return bad("no such directory: " + dir);
        if (!Files.isRegularFile(dir.resolve("deploy.xml")))
            return bad(dir + " has no deploy.xml (a deployment unit is a directory with deploy.xml, its .bpel and WSDL files)");
        String name = dir.toAbsolutePath().normalize().getFileName().toString();
        if (!name.matches(NAME) || name.contains(".."))
            return bad("the directory's name '" + name + "' is the unit's name, which must be 1 to 100 letters, digits, '.', '_' or '-'");
        HttpResponse<String> r = api.send(deploy ? "POST" : "PUT", "/admin/processes/" + name,
                HttpRequest.BodyPublishers.ofByteArray(zip(dir)), "application/zip", timeout);
        int status = r.statusCode();
        if (deploy && status == 409) return failed("unit " + name + " is already deployed: use processes redeploy " + dir);
        if (!deploy && status == 404) return failed("unit " + name + " is not deployed: use processes deploy " + dir);
        if (status != 200 && status != 201) return refused(name, r);
        long version = JSON.readTree(r.body()).path("version").asLong();
        JsonNode unit = await(api, name, version, timeout);
        if (unit == null) return 1;
        List<String> lines = new ArrayList<>();
        lines.add(name + " version " + version + (deploy ? " deployed" : " redeployed") + ", applied by " + replicas(unit));
        for (Iterator<Map.Entry<String, JsonNode>> i = unit.path("modes").fields(); i.hasNext(); ) {
            Map.Entry<String, JsonNode> m = i.next();
            lines.add("process " + localName(m.getKey()) + ": " + m.getValue().asText());
        }
        for (JsonNode path : unit.path("services"))
            lines.add("service " + path.asText().replaceFirst("^.*/", "") + ": " + api.broker + path.asText() + "?wsdl");
        lines.forEach(System.out::println);
        return 0;
    }

    private static int undeploy(AdminApi api, String name, boolean terminate, Duration timeout) throws IOException, InterruptedException {
        if (!name.matches(NAME) || name.contains("..")) return bad("'" + name + "' is not a unit's name");
        HttpResponse<String> r = api.send("DELETE", "/admin/processes/" + name + (terminate ? "?terminate=true" : ""),
                HttpRequest.BodyPublishers.noBody(), "application/json", timeout);
        if (r.statusCode() == 404) return failed("unit " + name + " is not deployed");
        if (r.statusCode() != 200) return refused(name, r);
        long version = JSON.readTree(r.body()).path("version").asLong();
        JsonNode unit = await(api, name, version, timeout);
        if (unit == null) return 1;
        long terminated = JSON.readTree(r.body()).path("terminated").asLong();
        System.out.println(name + " undeployed (version " + version + "), applied by " + replicas(unit)
                + (terminated > 0 ? "; " + terminated + " unfinished durable instance(s) terminated" : ""));
        return 0;
    }

    /**
     * Reads {@code /admin/processes} until every replica has applied {@code version} of unit
     * {@code name}; the unit's listing then, or null once it said why not (a replica's error, the
     * timeout). The replicas waited for are those that report on any stored unit, and the one
     * answering: a replica that stops takes its reports away, one killed keeps them until it
     * starts again under its name, and is named when the timeout ends the wait.
     */
    private static JsonNode await(AdminApi api, String name, long version, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String said = null;
        while (true) {
            HttpResponse<String> r = api.send("GET", "/admin/processes", HttpRequest.BodyPublishers.noBody(), "application/json",
                    Duration.ofSeconds(10));
            if (r.statusCode() != 200) {
                refused(name, r);
                return null;
            }
            JsonNode units = JSON.readTree(r.body());
            JsonNode unit = null;
            TreeSet<String> replicas = new TreeSet<>();
            for (JsonNode u : units) {
                if (u.path("name").asText().equals(name)) unit = u;
                u.path("replicas").fieldNames().forEachRemaining(replicas::add);
                if (u.hasNonNull("replica")) replicas.add(u.path("replica").asText());
            }
            List<String> pending = new ArrayList<>();
            Map<String, String> errors = new TreeMap<>();
            for (String replica : replicas) {
                JsonNode s = unit == null ? null : unit.path("replicas").get(replica);
                long applied = s == null ? -1 : s.path("version").asLong(-1);
                if (applied < version) pending.add(replica);
                else if (applied == version && s.hasNonNull("error")) errors.put(replica, s.path("error").asText());
            }
            if (!errors.isEmpty()) {
                errors.forEach((replica, error) -> System.err.println("moses admin: replica " + replica + " could not apply " + name
                        + " version " + version + ": " + error));
                return null;
            }
            if (pending.isEmpty()) return unit;
            String progress = "waiting for " + String.join(", ", pending) + " to apply " + name + " version " + version + " ("
                    + (replicas.size() - pending.size()) + " of " + replicas.size() + " replicas applied it)";
            if (System.nanoTime() - deadline > 0) {
                System.err.println("moses admin: " + name + " version " + version + " is stored, but not applied by "
                        + String.join(", ", pending) + " within " + timeout.toSeconds() + " s");
                return null;
            }
            if (!progress.equals(said)) System.err.println(progress);
            said = progress;
            Thread.sleep(POLL.toMillis());
        }
    }

    private static String replicas(JsonNode unit) {
        List<String> names = new ArrayList<>();
        unit.path("replicas").fieldNames().forEachRemaining(names::add);
        return names.size() + (names.size() == 1 ? " replica (" : " replicas (") + String.join(", ", names) + ")";
    }

    /** "{urn:x}Order" as "Order (urn:x)". */
    private static String localName(String qname) {
        int end = qname.indexOf('}');
        return qname.startsWith("{") && end > 0 ? qname.substring(end + 1) + " (" + qname.substring(1, end) + ")" : qname;
    }

    /** The unit directory as a bundle, deploy.xml at its root; ODE's compiled .cbp files stay out (the broker compiles its own). */
    static byte[] zip(Path dir) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out); var files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().endsWith(".cbp")).sorted().toList()) {
                z.putNextEntry(new ZipEntry(dir.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, z);
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    /** The broker's refusal, its reason as it gave it (ODE's compiler messages with file and line). */
    private static int refused(String name, HttpResponse<String> r) {
        if (r.statusCode() == 401) return failed(AdminCommand.NEEDS_OPERATOR + r.body());
        String reason;
        try {
            reason = JSON.readTree(r.body()).path("error").asText(r.body());
        } catch (IOException e) {
            reason = r.body(); // not the admin API's JSON: a proxy's page
        }
        return failed(name + " refused (HTTP " + r.statusCode() + "): " + reason.strip());
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
