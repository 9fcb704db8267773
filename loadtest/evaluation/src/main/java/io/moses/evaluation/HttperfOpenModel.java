package io.moses.evaluation;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The open model with httperf 0.9: at each rate, new SOAP POSTs start at that constant rate
 * whatever the replies do (one POST per session and connection, {@code --wsesslog}, the body in
 * {@code contents=}, SOAPAction and HTTP Basic authentication through {@code --add-header}).
 * httperf sends the same headers with every request: the seed's users each get their own
 * Authorization header through a {@link UserHeaderProxy} (HAProxy) that every target's open
 * model goes through.
 * httperf hangs once its 1024 sockets fill up at rates the target cannot absorb, so every run
 * is bounded with {@code timeout -s INT} (httperf prints its statistics on SIGINT).
 */
final class HttperfOpenModel {
    /** httperf's client timeout per request, s. */
    static final int CLIENT_TIMEOUT_S = 5;

    /** httperf keeps at most 1000 session templates; the sessions file stays under that. */
    static final int MAX_SESSIONS = 720;

    List<OpenStep> run(Target target, double[] rates, double seconds, Path dir, CpuSampler cpu, Consumer<String> commands,
                       Consumer<String> progress) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        URI uri = URI.create(target.url());
        // several users need the user header proxy (httperf sends one set of headers); without
        // HAProxy the run falls back to the first user, and says so
        boolean asUsers = target.users().size() > 1 && UserHeaderProxy.haproxy() != null;
        if (target.users().size() > 1 && !asUsers)
            progress.accept("  open   " + target.name() + ": haproxy not installed: httperf sends as " + target.users().get(0).name() + " only");
        List<Target.User> users = asUsers ? target.users() : List.of(target.users().get(0));
        Target.User user = users.get(0);
        Files.writeString(dir.resolve("sessions.txt"), sessions(target, users, asUsers), StandardCharsets.UTF_8);
        Path sessions = dir.resolve("sessions.txt");
        try (UserHeaderProxy proxy = asUsers ? UserHeaderProxy.start(uri, users, dir, commands) : null) {
            String host = uri.getHost();
            int port = proxy != null ? proxy.port() : uri.getPort();
            String headers = "Content-Type: text/xml; charset=utf-8\r\nSOAPAction: \"" + target.soapAction() + "\"\r\n"
                    + (asUsers ? "" : "Authorization: " + user.authorization() + "\r\n");
            return rates(target, rates, seconds, dir, cpu, commands, progress, user, sessions, host, port, headers);
        }
    }

    /**
     * The sessions file: one POST per session, every body as every user in turn (user k of the
     * body's round, so bodies and users do not pair up the same way each round), at most
     * {@link #MAX_SESSIONS}; with {@code asUsers} each session asks for {@code PATH?user=NAME},
     * which the {@link UserHeaderProxy} turns into the user's Authorization header.
     */
    static String sessions(Target target, List<Target.User> users, boolean asUsers) {
        URI uri = URI.create(target.url());
        List<String> bodies = target.bodies();
        int count = Math.min(bodies.size() * users.size(), Math.max(MAX_SESSIONS, bodies.size()));
        StringBuilder log = new StringBuilder("# one POST per session; written by io.moses.evaluation.HttperfOpenModel\n");
        for (int i = 0; i < count; i++) {
            int body = i % bodies.size(), round = i / bodies.size();
            Target.User u = users.get((body + round) % users.size());
            String b = bodies.get(body).replace("@USER@", u.name());
            if (b.indexOf('\'') >= 0 || b.indexOf('\n') >= 0) throw new IllegalArgumentException("a body httperf cannot carry (quote or newline): " + b);
            log.append(asUsers ? UserHeaderProxy.path(uri, u) : uri.getRawPath()).append(" method=POST contents='").append(b).append("'\n\n");
        }
        return log.toString();
    }

    private List<OpenStep> rates(Target target, double[] rates, double seconds, Path dir, CpuSampler cpu, Consumer<String> commands,
                                 Consumer<String> progress, Target.User user, Path sessions, String host, int port, String headers)
            throws IOException, InterruptedException {
        List<OpenStep> steps = new ArrayList<>();
        double baseP50 = Double.NaN;
        int saturatedInARow = 0;
        for (double rate : rates) {
            if (saturatedInARow == 2) {
                progress.accept(String.format("  open   %-8s %6.1f req/s: not run, two lower rates were beyond saturation", target.name(), rate));
                continue;
            }
            double offered = rate * target.scale();
            long n = Math.max(1, Math.round(offered * seconds));
            long bound = (long) Math.ceil(seconds + CLIENT_TIMEOUT_S + 5);
            // SIGINT at the bound (httperf prints its statistics), SIGKILL 5 s later if it still hangs
            List<String> cmd = List.of("timeout", "-s", "INT", "-k", "5", Long.toString(bound), "httperf", "-v", "-v", "--hog",
                    "--server", host, "--port", Integer.toString(port), "--wsesslog", n + ",0," + sessions,
                    "--rate", fmt(offered), "--timeout", Integer.toString(CLIENT_TIMEOUT_S), "--add-header", headers);
            commands.accept(String.join(" ", cmd.subList(0, cmd.size() - 2)) + " --add-header $'"
                    + headers.replace("\r\n", "\\r\\n").replace(user.authorization(), "Basic <" + user.name() + ":password>") + "'");
            progress.accept(String.format("  open   %-8s %6.1f req/s%s for %.0f s", target.name(), rate,
                    target.scale() == 1 ? "" : String.format(" (%.0f stub calls/s)", offered), seconds));
            Path out = dir.resolve("httperf-" + fmt(rate) + ".txt");
            long from = System.currentTimeMillis();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(bound + 15, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
            long to = System.currentTimeMillis();
            int exit = p.isAlive() ? -1 : p.exitValue();
            boolean interrupted = exit != 0;  // 124: stopped at the bound; 137: killed 5 s later
            String text = Files.readString(out);
            if (interrupted && exit != 124 && exit != 137 && !TOTAL.matcher(text).find())
                throw new IllegalStateException("httperf exited with " + exit + ":\n" + text);
            OpenStep step = TOTAL.matcher(text).find()
                    ? parse(target.name(), rate, offered, n, interrupted, text, cpu == null ? Double.NaN : cpu.cpuMs(from, to))
                    // killed before it could print anything: nothing is known to have come back
                    : new OpenStep(target.name(), rate, offered, n, 0, n, (to - from) / 1000.0, 0, Double.NaN, Double.NaN, Double.NaN,
                            Double.NaN, Double.NaN, Double.NaN, true, true);
            if (Double.isNaN(baseP50)) baseP50 = step.p50Ms();
            step = step.withSaturated(saturated(step, baseP50));
            steps.add(step);
            progress.accept(String.format("  open   %-8s %6.1f req/s: %6.1f replies/s, mean %7.1f ms, p95 %7.1f ms, errors %d%s",
                    target.name(), rate, step.achievedRps() / target.scale(), step.meanMs(), step.p95Ms(), step.errors(),
                    step.saturated() ? "  (beyond saturation" + (interrupted ? ", httperf stopped at its time bound)" : ")") : ""));
            saturatedInARow = step.saturated() ? saturatedInARow + 1 : 0;
            // an overloaded target still works off the requests httperf gave up on: wait until it
            // answers again before the next rate, so one rate's backlog is not the next one's result
            if (step.saturated()) {
                long drained = Drain.await(target, user, Math.max(2, 2 * baseP50 / 1000.0), 60);
                progress.accept(drained >= 0 ? String.format("  open   %-8s drained in %.1f s", target.name(), drained / 1000.0)
                        : String.format("  open   %-8s still not answering within 2 s after 60 s", target.name()));
            } else {
                Thread.sleep(300);
            }
        }
        return steps;
    }

    /**
     * Beyond saturation: httperf had to be stopped; more than 1% of requests failed; the replies
     * did not keep pace (the run lasted over 1.2 times the sending time plus a second: a backlog
     * built up); or the median response time grew tenfold over the lowest rate's (queueing).
     */
    static boolean saturated(OpenStep s, double baseP50) {
        double sending = s.sessions() / s.offeredRps();
        return s.interrupted() || s.errors() > 0.01 * s.sessions() || s.seconds() > 1.2 * sending + 1
                || (!Double.isNaN(baseP50) && s.p50Ms() > 10 * Math.max(baseP50, 1));
    }

    private static final Pattern TOTAL = Pattern.compile("Total: connections (\\d+) requests (\\d+) replies (\\d+) test-duration ([0-9.]+) s");
    private static final Pattern STATUS = Pattern.compile("Reply status: 1xx=(\\d+) 2xx=(\\d+) 3xx=(\\d+) 4xx=(\\d+) 5xx=(\\d+)");
    private static final Pattern CONN = Pattern.compile("Connection time \\[ms\\]: min ([0-9.]+) avg ([0-9.]+) max ([0-9.]+) median ([0-9.]+)");
    private static final Pattern BIN = Pattern.compile("^\\s+([0-9.]+) (\\d+)\\s*$");

    /** Reads httperf's -v -v output: totals, reply status, connection times and their 1 ms histogram. */
    static OpenStep parse(String target, double rate, double offered, long sessions, boolean interrupted, String text, double cpuMs) {
        Matcher t = TOTAL.matcher(text);
        if (!t.find()) throw new IllegalStateException("no statistics in httperf's output:\n" + text);
        double duration = Double.parseDouble(t.group(4));
        Matcher s = STATUS.matcher(text);
        long ok = s.find() ? Long.parseLong(s.group(2)) : 0;
        Matcher c = CONN.matcher(text);
        double mean = Double.NaN, max = Double.NaN;
        if (c.find() && ok > 0) {
            mean = Double.parseDouble(c.group(2));
            max = Double.parseDouble(c.group(3));
        }
        // connection lifetime histogram, 1 ms bins: "  12.5 7" lines after its heading
        List<double[]> bins = new ArrayList<>();
        int h = text.indexOf("Connection lifetime histogram");
        if (h >= 0) {
            for (String line : text.substring(h).split("\n", -1)) {
                Matcher b = BIN.matcher(line);
                if (b.find()) bins.add(new double[]{Double.parseDouble(b.group(1)), Long.parseLong(b.group(2))});
                else if (line.isBlank() && !bins.isEmpty()) break;
            }
        }
        long errors = Math.max(0, sessions - ok);
        return new OpenStep(target, rate, offered, sessions, ok, errors, duration, duration > 0 ? ok / duration : 0, mean,
                histogramPercentile(bins, 50), histogramPercentile(bins, 95), histogramPercentile(bins, 99), max,
                ok > 0 ? cpuMs / ok : Double.NaN, interrupted, false);
    }

    static double histogramPercentile(List<double[]> bins, double p) {
        long total = 0;
        for (double[] b : bins) total += (long) b[1];
        if (total == 0) return Double.NaN;
        long rank = (long) Math.ceil(p / 100 * total);
        long seen = 0;
        for (double[] b : bins) {
            seen += (long) b[1];
            if (seen >= rank) return b[0];
        }
        return bins.get(bins.size() - 1)[0];
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
