package io.moses.core;

import io.moses.core.cluster.ClusterSettings;
import io.moses.core.loop.Adaptation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code moses run}: a broker replica as a Camel main process. Camel owns the process life
 * cycle (graceful stop on SIGTERM) and, as the ESB, hosts the scheduled routes of the
 * monitors; the broker is one service in its context.
 */
public final class Main {
    private Main() {}

    /** The system property logback.xml picks the format by (text, json); set before the first logger. */
    static final String LOG_FORMAT = "moses.log.format";

    public static void main(String[] args) {
        // before any class that logs is loaded: logback reads its configuration once, as the
        // first logger is made (many are made in static initializers)
        String format = logFormatOf(args);
        if (format != null) System.setProperty(LOG_FORMAT, format);
        BrokerConfig config;
        ClusterSettings cluster;
        io.moses.core.frontend.RatePolicy rates;
        io.moses.core.frontend.ClassWorth worth;
        try {
            ClusterSettings.Parsed c = ClusterSettings.parse(args);
            io.moses.core.frontend.RatePolicy.Parsed r = io.moses.core.frontend.RatePolicy.parse(c.rest());
            rates = r.policy();
            io.moses.core.frontend.ClassWorth.Parsed w = io.moses.core.frontend.ClassWorth.parse(r.rest());
            worth = w.worth();
            config = parse(w.rest());
            cluster = c.settings(config.workDir(), config.db());
        } catch (IllegalArgumentException e) {
            System.err.println("moses run: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        Broker broker = new Broker(config, cluster).ratePolicy(rates).classWorth(worth);
        try {
            broker.start();
        } catch (Exception e) {
            System.err.println("moses run: cannot start: " + e.getMessage());
            broker.close();
            System.exit(1);
            return;
        }
        // The JVM waits for shutdown hooks, not for the main thread: stop the broker here so a
        // SIGTERM drains in-flight requests before the process ends.
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "moses-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String usage() {
        return """
                usage: moses run [--port N] [--host ADDR] [--deploy DIR]... [--work DIR] [--db SPEC] [--seed FILE]... [--reseed]
                                 [--operator-file FILE]
                                 [--set NAME=VALUE]... [--binding adaptive|static] [--refresh MS]
                                 [--monitors qos,ws,paths,forecast|...|none] [--optimizer auto|clp|lp_solve|ojalgo|off]
                                 [--monitor-period MS] [--probe-period MS] [--hold MS]
                                 [--request-timeout MS] [--invoke-timeout MS] [--max-body BYTES] [--read-timeout MS]
                                 [--replica NAME] [--lease MS] [--drain MS] [--advertise http[s]://HOST:PORT] [--public-url http[s]://HOST:PORT]
                                 [--tls-cert PEM [--tls-key PEM]]
                                 [--registration open|closed] [--registration-cap N] [--trusted-proxy ADDR] [--max-instances-per-user N] [--instance-retention 7d|off] [--metrics-users] [--max-in-flight N] [--max-queued N]
                                 [--class-priority CLASS=N,...]
                                 [--over-rate off|reject|best-effort] [--rate-burst SECONDS]
                                 [--best-effort-share F] [--tls-cert CHAIN.pem [--tls-key KEY.pem]]
                                 [--log-format text|json]
                  --db      an H2 file path (default WORK/knowledge), mem: for in-memory H2, or a
                            jdbc:mysql:// or jdbc:mariadb:// URL (credentials in the URL, or in
                            MOSES_DB_USER and MOSES_DB_PASSWORD / MOSES_DB_PASSWORD_FILE)
                  --seed    classes, users and services loaded into an empty knowledge base (one without
                            classes, users and concrete services); --reseed: into any, replacing what the
                            seed names (so a changed subscription, class or service of a seeded name reverts)
                  --set     a value for ${NAME} in the seed file
                  --monitors  the monitors that run (default qos,ws,paths,forecast): forecast predicts a
                            class's SLA violation from its providers' response-time trends and re-plans
                            ahead (docs/model.md, "Forecasts"); qos,ws,paths turns only it off
                  --operator-file  a file holding one line NAME:PASSWORD (a Docker secret): that operator is
                            created at start while the knowledge base has no operator (else the file is
                            not read). Offline: moses operator set NAME --db SPEC
                  --replica this replica's name in a cluster (default host-pid-random); --lease: the
                            optimizer leader's lease (default 3000 ms); --drain: after SIGTERM, how long
                            /health says DRAINING before the port closes (default 0; 2000 behind HAProxy);
                            --advertise: where the other replicas reach this one (default: the --host it
                            listens on, 127.0.0.1 for 0.0.0.0; in containers, e.g. http://broker-1:8080;
                            https://NAME:PORT for a replica that serves TLS, whose certificate names NAME)
                  --public-url  where partners reach the broker's services: the address of the
                            endpoint references a process hands out, such as an asynchronous task's
                            reply address (default: --advertise, else this replica's own address).
                            In a cluster, the front's URL (HAProxy's), so a callback reaches any replica
                  --read-timeout  how long a client may take to send a whole request, headers and
                            body (default 10000): later, HTTP 408 and the connection closed; a body over
                            --max-body (default 1048576) gets 413. Bodies are read before anything else
                            sees them, holding no request thread and no engine place while they arrive
                  --tls-cert  serve HTTPS (TLS 1.2 and 1.3 only) instead of plain HTTP on --port, with
                            this PEM certificate chain (the server's certificate first) and the
                            unencrypted PKCS#8 key in --tls-key (-----BEGIN PRIVATE KEY-----), or in the
                            same file when --tls-key is left out (HAProxy's format). Over TLS, and behind
                            a proxy that sends X-Forwarded-Proto: https, answers carry
                            Strict-Transport-Security and the console's cookie is Secure
                  --registration  closed (default): only an operator subscribes new users;
                            open: anyone may Subscribe at /manage/sla while the knowledge base holds
                            fewer than --registration-cap users (default 1000)
                  --max-instances-per-user  conversations (instances of processes that correlate,
                            which wait for a next message) one user may have under way (default 1000;
                            0: no limit): a message that would start one more gets a client fault
                  --instance-retention  how long a finished durable instance (completed, faulted,
                            terminated) is kept for operators to look at (/admin/instances) before it is
                            purged: a number with ms, s, m, h or d (default 7d); off: kept for ever
                  --metrics-users  /metrics has the policing counters per user too (their series name
                            the users: keep such a /metrics internal); per class only by default
                  --trusted-proxy  the IP address or network (172.28.0.0/16; several comma-separated;
                            repeatable) of a proxy in front, such as HAProxy: its X-Forwarded-For names the client, whose failed
                            logins are counted (after 20, its logins wait, 1 s doubling to 5 min)
                  --max-in-flight  composite requests run at once (default 64); --max-queued: how many
                            more wait up to 2 s for a turn (default 64); beyond, HTTP 503 with Retry-After
                            (the class worth least first; waiting requests served highest class first).
                            --class-priority gold=2,silver=1: the order classes are refused in (a class not
                            named: 0); the price per request breaks ties. Default: by price. equal: every
                            class worth the same (arrival order, no shedding by class)
                  --over-rate  reject: a user's composite requests above its agreed rate get HTTP 429 with
                            Retry-After (in a cluster each replica polices rate / live replicas);
                            best-effort: they are served only with spare capacity, below every class, and
                            left out of the class's SLA figures; off (default): not policed. A class's
                            overRate (seed, /admin/classes) overrides it. --rate-burst: seconds of the
                            agreed rate a user may send at once (0.1 to 60, default 2).
                            --best-effort-share: best-effort excess runs only while fewer than this
                            share of --max-in-flight run (above 0 to 1, default 0.5)
                  --log-format  the log on standard error: text (default), one line per event
                            (12:34:56.789 INFO Broker - message), with trace_id=ID at the end of a traced
                            request's lines; json: one JSON object per line, for log shippers (time, level,
                            logger, message; trace_id and span_id in a traced request's; exception).
                            -Dmoses.log.level=warn in MOSES_JAVA_OPTS: fewer lines (default info)""";
    }

    static BrokerConfig parse(String[] args) {
        BrokerConfig c = BrokerConfig.defaults();
        List<Path> deploy = new ArrayList<>();
        Map<String, String> vars = new java.util.HashMap<>();
        List<Path> seeds = new ArrayList<>();
        Duration request = c.requestTimeout();
        Duration invoke = c.invokeTimeout();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> c = c.withPort(intArg(args, ++i, a));
                case "--host" -> c = c.withHost(arg(args, ++i, a));
                case "--deploy" -> deploy.add(Path.of(arg(args, ++i, a)));
                case "--work" -> c = c.withWorkDir(Path.of(arg(args, ++i, a)));
                case "--db" -> c = c.withDb(arg(args, ++i, a));
                case "--seed" -> seeds.add(Path.of(arg(args, ++i, a)));
                case "--reseed" -> c = c.withReseed(true);
                case "--operator-file" -> c = c.withOperatorFile(Path.of(arg(args, ++i, a)));
                case "--request-timeout" -> request = Duration.ofMillis(intArg(args, ++i, a));
                case "--invoke-timeout" -> invoke = Duration.ofMillis(intArg(args, ++i, a));
                case "--max-body" -> c = c.withMaxBodyBytes(intArg(args, ++i, a));
                case "--tls-cert" -> c = c.withTls(Path.of(arg(args, ++i, a)), c.tlsKey());
                case "--tls-key" -> c = c.withTls(c.tlsCert(), Path.of(arg(args, ++i, a)));
                case "--read-timeout" -> c = c.withReadDeadline(Duration.ofMillis(Math.max(100, intArg(args, ++i, a))));
                case "--refresh" -> c = c.withRefreshMillis(Math.max(50, intArg(args, ++i, a)));
                case "--binding" -> {
                    String b = arg(args, ++i, a);
                    if (!b.equals("adaptive") && !b.equals("static"))
                        throw new IllegalArgumentException("--binding is adaptive or static, got '" + b + "'");
                    c = c.withStaticBinding(b.equals("static"));
                }
                case "--monitors" -> {
                    String m = arg(args, ++i, a);
                    java.util.Set<String> on = m.equals("none") ? java.util.Set.of() : java.util.Set.of(m.split(","));
                    for (String x : on)
                        if (!java.util.Set.of("qos", "ws", "paths", "forecast").contains(x))
                            throw new IllegalArgumentException("--monitors takes qos,ws,paths[,forecast] or none, got '" + x + "'");
                    if (on.contains("forecast") && !on.contains("qos"))
                        throw new IllegalArgumentException("--monitors forecast needs qos: it forecasts the QoS Monitor's windows");
                    c = c.withAdaptation(c.adaptation().withMonitors(on.contains("qos"), on.contains("ws"), on.contains("paths"))
                            .withForecast(on.contains("forecast")));
                }
                case "--optimizer" -> {
                    String o = arg(args, ++i, a);
                    if (o.equals("off")) c = c.withAdaptation(c.adaptation().withOptimizer(false, c.adaptation().solver()));
                    else if (java.util.Set.of("auto", "clp", "lp_solve", "ojalgo").contains(o))
                        c = c.withAdaptation(c.adaptation().withOptimizer(true, o));
                    else throw new IllegalArgumentException("--optimizer takes auto, clp, lp_solve, ojalgo or off, got '" + o + "'");
                }
                case "--monitor-period" -> {
                    Adaptation ad = c.adaptation();
                    c = c.withAdaptation(ad.withPeriods(Math.max(100, intArg(args, ++i, a)), ad.probeMillis(), ad.holdMillis()));
                }
                case "--probe-period" -> {
                    Adaptation ad = c.adaptation();
                    c = c.withAdaptation(ad.withPeriods(ad.monitorMillis(), Math.max(100, intArg(args, ++i, a)), ad.holdMillis()));
                }
                case "--hold" -> {
                    Adaptation ad = c.adaptation();
                    c = c.withAdaptation(ad.withPeriods(ad.monitorMillis(), ad.probeMillis(), intArg(args, ++i, a)));
                }
                case "--registration" -> {
                    String r = arg(args, ++i, a);
                    if (!r.equals("open") && !r.equals("closed"))
                        throw new IllegalArgumentException("--registration is open or closed, got '" + r + "'");
                    c = c.withOpenRegistration(r.equals("open"));
                }
                case "--registration-cap" -> c = c.withRegistrationCap(intArg(args, ++i, a));
                case "--max-instances-per-user" -> c = c.withMaxInstancesPerUser(intArg(args, ++i, a));
                case "--instance-retention" -> c = c.withInstanceRetention(retention(arg(args, ++i, a)));
                case "--metrics-users" -> c = c.withUsersInMetrics(true);
                case "--public-url" -> c = c.withPublicUrl(publicUrl(arg(args, ++i, a)));
                case "--trusted-proxy" -> {
                    List<String> proxies = new ArrayList<>(c.trustedProxies());
                    proxies.addAll(List.of(arg(args, ++i, a).split(",")));
                    try {
                        io.moses.core.frontend.TrustedProxies.parse(proxies);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--trusted-proxy: " + e.getMessage());
                    }
                    c = c.withTrustedProxies(proxies);
                }
                case "--set" -> {
                    String kv = arg(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("--set needs NAME=VALUE, got '" + kv + "'");
                    vars.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "--max-in-flight" -> {
                    io.moses.core.frontend.OverloadBound m = c.overloadBound();
                    c = c.withOverloadBound(new io.moses.core.frontend.OverloadBound(Math.max(1, intArg(args, ++i, a)), m.maxQueued(), m.maxWait()));
                }
                case "--max-queued" -> {
                    io.moses.core.frontend.OverloadBound m = c.overloadBound();
                    c = c.withOverloadBound(new io.moses.core.frontend.OverloadBound(m.maxInFlight(), intArg(args, ++i, a), m.maxWait()));
                }
                case "--log-format" -> logFormat(arg(args, ++i, a)); // main has set it: checked here
                case "--help", "-h" -> {
                    System.out.println(usage());
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (c.tlsKey() != null && c.tlsCert() == null) throw new IllegalArgumentException("--tls-key needs --tls-cert (the certificate chain)");
        return c.withDeployments(deploy).withTimeouts(request, invoke).withVariables(vars).withSeeds(seeds);
    }

    /** The value of the last valid {@code --log-format} among {@code args}, or null; a wrong one is parse's to report. */
    static String logFormatOf(String[] args) {
        String format = null;
        for (int i = 0; i + 1 < args.length; i++)
            if (args[i].equals("--log-format") && (args[i + 1].equals("text") || args[i + 1].equals("json"))) format = args[++i];
        return format;
    }

    private static String logFormat(String v) {
        if (!v.equals("text") && !v.equals("json")) throw new IllegalArgumentException("--log-format is text or json, got '" + v + "'");
        return v;
    }

    /** http[s]://HOST[:PORT], nothing after it: the services' paths (/services/NAME) are added to it. */
    static java.net.URI publicUrl(String v) {
        java.net.URI u;
        try {
            u = new java.net.URI(v);
        } catch (java.net.URISyntaxException e) {
            u = null;
        }
        if (u == null || !("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null
                || !(u.getRawPath() == null || u.getRawPath().isEmpty()) || u.getRawQuery() != null || u.getRawFragment() != null
                || u.getRawUserInfo() != null)
            throw new IllegalArgumentException("--public-url needs http://HOST[:PORT] or https://HOST[:PORT] (where partners reach the broker), got '"
                    + v + "'");
        return u;
    }

    /** "7d", "12h", "30m", "45s", "500ms", or "off" (null: kept for ever). */
    static Duration retention(String v) {
        if (v.equals("off")) return null;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h|d)").matcher(v);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0)
            throw new IllegalArgumentException("--instance-retention takes a positive number with ms, s, m, h or d (7d), or off; got '" + v + "'");
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    private static String arg(String[] args, int i, String option) {
        if (i >= args.length) throw new IllegalArgumentException(option + " needs a value");
        return args[i];
    }

    private static int intArg(String[] args, int i, String option) {
        String v = arg(args, i, option);
        try {
            int n = Integer.parseInt(v);
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a non-negative whole number, got '" + v + "'");
        }
    }
}
