package io.moses.loadtest.driver;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/** The command line of {@link ClosedLoopDriver}; every mistake is an IllegalArgumentException naming the option. */
final class Cli {
    static final String USAGE_LINE = "ClosedLoopDriver --url U [--action A] (--body FILE | --bodies DIR) [--clients N]"
            + " [--requests M] [--seconds T] [--warmup W] [--user u:p]... [--tally REGEX] [--timeout S] [--progress S] [--json]";
    static final String USAGE = "usage: " + USAGE_LINE + "\n"
            + "Closed-loop SOAP load: N clients each send a request, wait for the reply, send the next.\n"
            + "  --url U        endpoint, e.g. http://127.0.0.1:8080/services/TripPlannerService\n"
            + "  --action A     SOAPAction (default none)\n"
            + "  --body FILE    the request envelope\n"
            + "  --bodies DIR   the *.xml files in DIR, sorted by name, sent round-robin\n"
            + "  --clients N    concurrent clients (default 1)\n"
            + "  --requests M   measured requests to send          } at least one; the run stops\n"
            + "  --seconds T    length of the measured phase       } at whichever comes first\n"
            + "  --warmup W     requests sent first and not measured (default 0)\n"
            + "  --user u:p     HTTP Basic credentials; repeat for several users, assigned to clients in turn\n"
            + "  --tally REGEX  count capture group 1 of REGEX in successful replies, e.g. 'by ([a-z]+-[ab])'\n"
            + "  --timeout S    per-request timeout in seconds (default 30)\n"
            + "  --progress S   progress line on stderr every S seconds (default 2, 0 = none)\n"
            + "  --json         print the result as one JSON line instead of the report\n"
            + "Exit code: 0 no errors, 1 some request failed, 2 bad arguments.";

    boolean help, json;
    String url, action = "", bodyFile, bodiesDir, tally;
    int clients = 1;
    long requests, warmup;
    Double seconds;
    double timeout = 30, progress = 2;
    final List<UserCredentials> users = new ArrayList<>();

    private Cli() {}

    static Cli parse(String[] args) {
        Cli c = new Cli();
        for (int i = 0; i < args.length; i++) {
            String opt = args[i];
            switch (opt) {
                case "--help", "-h" -> c.help = true;
                case "--json" -> c.json = true;
                case "--url" -> c.url = value(args, ++i, opt);
                case "--action" -> c.action = value(args, ++i, opt);
                case "--body" -> c.bodyFile = value(args, ++i, opt);
                case "--bodies" -> c.bodiesDir = value(args, ++i, opt);
                case "--clients" -> c.clients = (int) integer(args, ++i, opt, 1, 100_000);
                case "--requests" -> c.requests = integer(args, ++i, opt, 1, Long.MAX_VALUE / 2);
                case "--warmup" -> c.warmup = integer(args, ++i, opt, 0, Long.MAX_VALUE / 2);
                case "--seconds" -> c.seconds = decimal(args, ++i, opt, false);
                case "--timeout" -> c.timeout = decimal(args, ++i, opt, false);
                case "--progress" -> c.progress = decimal(args, ++i, opt, true);
                case "--tally" -> c.tally = value(args, ++i, opt);
                case "--user" -> c.users.add(UserCredentials.parse(value(args, ++i, opt)));
                default -> throw new IllegalArgumentException("unknown option '" + opt + "'");
            }
        }
        return c;
    }

    LoadSpec spec(PrintStream progressOut) {
        if (url == null) throw new IllegalArgumentException("--url is required");
        URI target;
        try {
            target = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--url: not a URI: " + e.getMessage());
        }
        if (!target.isAbsolute() || target.getHost() == null
                || !("http".equalsIgnoreCase(target.getScheme()) || "https".equalsIgnoreCase(target.getScheme())))
            throw new IllegalArgumentException("--url: expected an absolute http(s) URL, got '" + url + "'");
        if ((bodyFile == null) == (bodiesDir == null)) throw new IllegalArgumentException("give exactly one of --body FILE and --bodies DIR");
        if (requests == 0 && seconds == null) throw new IllegalArgumentException("give --requests M or --seconds T (or both)");
        Pattern tallyPattern = null;
        if (tally != null) {
            try {
                tallyPattern = Pattern.compile(tally);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("--tally: bad regex: " + e.getDescription() + " in '" + tally + "'");
            }
            if (tallyPattern.matcher("").groupCount() < 1)
                throw new IllegalArgumentException("--tally: the regex needs a capture group, e.g. 'by ([a-z]+-[ab])'");
        }
        BodySource bodies = bodyFile != null ? BodySource.fixed(readBody(Path.of(bodyFile), "--body"))
                : BodySource.roundRobin(readBodies(Path.of(bodiesDir)));
        return LoadSpec.builder(target, bodies).soapAction(action).credentials(users).clients(clients).maxRequests(requests)
                .maxDuration(seconds == null ? null : ClosedLoopDriver.seconds(seconds)).warmupRequests(warmup)
                .requestTimeout(ClosedLoopDriver.seconds(timeout)).tally(tallyPattern)
                .progress(progress > 0 ? progressOut::println : null)
                .progressInterval(progress > 0 ? ClosedLoopDriver.seconds(progress) : null)
                .build();
    }

    private static String readBody(Path file, String opt) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(opt + ": no such file: " + file);
        try {
            String body = Files.readString(file, StandardCharsets.UTF_8);
            if (body.isBlank()) throw new IllegalArgumentException(opt + ": file is empty: " + file);
            return body;
        } catch (IOException e) {
            throw new IllegalArgumentException(opt + ": cannot read " + file + ": " + e);
        }
    }

    private static List<String> readBodies(Path dir) {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException("--bodies: no such directory: " + dir);
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".xml") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException("--bodies: cannot list " + dir + ": " + e);
        }
        if (files.isEmpty()) throw new IllegalArgumentException("--bodies: no *.xml files in " + dir);
        List<String> bodies = new ArrayList<>();
        for (Path f : files) bodies.add(readBody(f, "--bodies"));
        return bodies;
    }

    private static String value(String[] args, int i, String opt) {
        if (i >= args.length || args[i].startsWith("--")) throw new IllegalArgumentException(opt + " needs a value");
        return args[i];
    }

    private static long integer(String[] args, int i, String opt, long min, long max) {
        String v = value(args, i, opt);
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + ": not a whole number: '" + v + "'");
        }
        if (n < min || n > max) throw new IllegalArgumentException(opt + ": must be between " + min + " and " + max + ", got " + n);
        return n;
    }

    private static double decimal(String[] args, int i, String opt, boolean zeroAllowed) {
        String v = value(args, i, opt);
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + ": not a number: '" + v + "'");
        }
        if (Double.isNaN(d) || Double.isInfinite(d) || d < 0 || (!zeroAllowed && d == 0) || d > 1e7)
            throw new IllegalArgumentException(opt + ": must be a positive number of seconds" + (zeroAllowed ? " or 0" : "") + ", got " + v);
        return d;
    }
}
