package io.moses.mdal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A seed file (YAML, or JSON, which is YAML too): service classes, users, concrete services,
 * which tasks are idempotent, stateful or asynchronous and optionally an initial plan, loaded at start into an empty
 * knowledge base ({@code ./moses run --seed FILE}; {@code --reseed}: into any). The format is
 * documented by example in {@code bpel-processes/trip-planner/seed.yaml}.
 *
 * <p>String values may contain {@code ${NAME}}, replaced by the caller's variables (for example
 * {@code STUBS}, the stubs' base URL) or else the environment. Passwords are hashed on load;
 * the plain text is not kept. Every error names the file and the field
 * ({@code seed.yaml: services[2].availability must be in (0, 1], was 1.5}).
 */
public final class Seed {
    private static final Logger LOG = LoggerFactory.getLogger(Seed.class);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final String source;
    private final List<ServiceClass> classes;
    private final List<User> users;
    private final List<ConcreteService> services;
    private final Map<TaskRef, Boolean> idempotent;
    private final Map<TaskRef, Boolean> stateful;
    private final Map<TaskRef, io.moses.model.Callback> callbacks;
    private final Map<String, io.moses.model.OverRate> overRates;
    private final Plan plan;

    private Seed(String source, List<ServiceClass> classes, List<User> users, List<ConcreteService> services,
                 Map<TaskRef, Boolean> idempotent, Map<TaskRef, Boolean> stateful, Map<TaskRef, io.moses.model.Callback> callbacks,
                 Map<String, io.moses.model.OverRate> overRates, Plan plan) {
        this.source = source;
        this.callbacks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(callbacks));
        this.stateful = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stateful));
        this.overRates = Map.copyOf(overRates);
        this.idempotent = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(idempotent));
        this.classes = List.copyOf(classes);
        this.users = List.copyOf(users);
        this.services = List.copyOf(services);
        this.plan = plan;
    }

    public static Seed load(Path file) {
        return load(file, Map.of());
    }

    /** @param variables values for {@code ${NAME}} in string values, for example STUBS=http://127.0.0.1:8089 */
    public static Seed load(Path file, Map<String, String> variables) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw KnowledgeBaseException.invalid("seed " + file + ": cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        return parse(text, file.getFileName().toString(), variables);
    }

    /** Parses seed text; {@code source} names it in messages. */
    public static Seed parse(String text, String source, Map<String, String> variables) {
        Map<String, String> vars = Map.copyOf(variables == null ? Map.of() : variables);
        Function<String, String> lookup = n -> vars.containsKey(n) ? vars.get(n) : System.getenv(n);
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            throw KnowledgeBaseException.invalid(source + ": not valid YAML: " + KnowledgeBaseException.firstLine(e.getMessage()));
        }
        if (root == null || root.isMissingNode() || root.isNull()) root = YAML.createObjectNode();
        return new Reader(source, lookup).seed(root);
    }

    public List<ServiceClass> classes() {
        return classes;
    }

    /** Users with hashed passwords. */
    public List<User> users() {
        return users;
    }

    public List<ConcreteService> services() {
        return services;
    }

    /** Whether a second call of each task the seed names under {@code tasks:} is safe. */
    public Map<TaskRef, Boolean> idempotent() {
        return idempotent;
    }

    /** Whether the provider of each task the seed names under {@code tasks:} with {@code stateful:} keeps conversation state. */
    public Map<TaskRef, Boolean> stateful() {
        return stateful;
    }

    /** The asynchronous tasks the seed names under {@code tasks:} ({@code callback:}), with how each answers. */
    public Map<TaskRef, io.moses.model.Callback> callbacks() {
        return callbacks;
    }

    /** The classes that name their own policy for requests above their users' agreed rates ({@code overRate:}). */
    public Map<String, io.moses.model.OverRate> overRates() {
        return overRates;
    }

    /** The initial plan (version 0 until published), if the seed has one. */
    public Optional<Plan> plan() {
        return Optional.ofNullable(plan);
    }

    /**
     * Writes the seed into a knowledge base: classes, users and services are inserted or
     * replaced (the seed is the operator's statement of them); the plan is published only if the
     * knowledge base has none yet, so a restart does not roll back a solved plan.
     *
     * @return the plan published, if one was
     */
    public Optional<Plan> applyTo(KnowledgeBase kb) {
        classes.forEach(kb::putServiceClass);
        for (ServiceClass k : classes) kb.putClassOverRate(k.name(), overRates.get(k.name())); // none named: the broker's default
        users.forEach(kb::putUser);
        services.forEach(kb::putConcreteService);
        idempotent.forEach(kb::putTaskIdempotent);
        stateful.forEach(kb::putTaskStateful);
        callbacks.forEach(kb::putTaskCallback);
        Optional<Plan> published = Optional.empty();
        if (plan != null && kb.latestPlanVersion() == 0) published = Optional.of(kb.publish(plan));
        LOG.info("seed {} applied: {} classes, {} users, {} concrete services{}", source, classes.size(), users.size(), services.size(),
                published.map(p -> ", plan version " + p.version()).orElse(plan == null ? "" : ", plan skipped (one exists)"));
        return published;
    }

    @Override
    public String toString() {
        return "Seed[" + source + ": " + classes.size() + " classes, " + users.size() + " users, " + services.size() + " services"
                + (plan == null ? "" : ", plan") + "]";
    }


    /** Reads the tree, keeping the path of the current field for messages. */
    private static final class Reader {
        private final String source;
        private final Function<String, String> lookup;

        Reader(String source, Function<String, String> lookup) {
            this.source = source;
            this.lookup = lookup;
        }

        private KnowledgeBaseException error(String path, String message) {
            return KnowledgeBaseException.invalid(source + ": " + path + message);
        }

        Seed seed(JsonNode root) {
            if (!root.isObject()) throw error("", "the top level must be a mapping (classes:, users:, services:, plan:)");
            fields(root, "", Set.of("composite", "classes", "users", "services", "tasks", "plan"));
            String defaultComposite = root.has("composite") ? string(root, "", "composite") : null;

            Map<TaskRef, Boolean> idempotent = new LinkedHashMap<>(), stateful = new LinkedHashMap<>();
            Map<TaskRef, io.moses.model.Callback> callbacks = new LinkedHashMap<>();
            Set<TaskRef> listed = new HashSet<>();
            int t = 0;
            for (JsonNode n : list(root, "tasks")) {
                String p = "tasks[" + t++ + "]";
                fields(n, p, Set.of("task", "composite", "idempotent", "stateful", "callback", "callbackTimeout"));
                TaskRef task = task(n, p, defaultComposite);
                if (!listed.add(task)) throw error(p + ".task", ": a second entry for task " + task);
                if (!n.has("idempotent") && !n.has("stateful") && !n.has("callback"))
                    throw error(p, ": says nothing of task " + task + " (give idempotent:, stateful:, callback: or more)");
                if (n.has("callbackTimeout") && !n.has("callback")) throw error(p + ".callbackTimeout", ": without a callback:");
                if (n.has("callback")) {
                    String operation = string(n, p, "callback");
                    double seconds = n.has("callbackTimeout") ? number(n, p, "callbackTimeout") : io.moses.model.Callback.DEFAULT_TIMEOUT.toMillis() / 1e3;
                    if (!(seconds > 0 && seconds <= io.moses.model.Callback.MAX_TIMEOUT.toSeconds()))
                        throw error(p + ".callbackTimeout", " must be in (0, " + io.moses.model.Callback.MAX_TIMEOUT.toSeconds() + "] seconds, was " + seconds);
                    java.time.Duration timeout = java.time.Duration.ofNanos(Math.round(seconds * 1e9));
                    callbacks.put(task, build(p + ".callback", () -> new io.moses.model.Callback(operation, timeout)));
                }
                for (var flag : List.of(Map.entry("idempotent", idempotent), Map.entry("stateful", stateful))) {
                    JsonNode v = n.get(flag.getKey());
                    if (v == null) continue;
                    if (!v.isBoolean()) throw error(p + "." + flag.getKey(), " must be true or false");
                    flag.getValue().put(task, v.asBoolean());
                }
            }

            List<ServiceClass> classes = new ArrayList<>();
            Map<String, io.moses.model.OverRate> overRates = new LinkedHashMap<>();
            Set<String> classNames = new HashSet<>();
            int i = 0;
            for (JsonNode n : list(root, "classes")) {
                String p = "classes[" + i++ + "]";
                fields(n, p, Set.of("name", "maxResponseTime", "minAvailability", "maxCost", "price", "overRate"));
                String name = string(n, p, "name");
                if (!classNames.add(name)) throw error(p + ".name", ": duplicate class '" + name + "'");
                if (n.has("overRate")) {
                    String v = string(n, p, "overRate");
                    try {
                        overRates.put(name, io.moses.model.OverRate.parse("overRate", v));
                    } catch (IllegalArgumentException e) {
                        throw error(p + ".overRate", " must be off, reject or best-effort, was '" + v + "'");
                    }
                }
                classes.add(build(p, () -> new ServiceClass(name, number(n, p, "maxResponseTime"), number(n, p, "minAvailability"),
                        number(n, p, "maxCost"), number(n, p, "price"))));
            }

            List<User> users = new ArrayList<>();
            Set<String> userNames = new HashSet<>();
            // a hash takes a few hundred ms of one core: a seed's are computed on every core at once
            List<Supplier<User>> pending = new ArrayList<>();
            ExecutorService hashing = Executors.newFixedThreadPool(
                    Math.max(1, Runtime.getRuntime().availableProcessors()), r -> {
                        Thread worker = new Thread(r, "seed-hashing");
                        worker.setDaemon(true);
                        return worker;
                    });
            try {
                i = 0;
                for (JsonNode n : list(root, "users")) {
                    String p = "users[" + i++ + "]";
                    fields(n, p, Set.of("name", "class", "rate", "password", "passwordEnv", "passwordHash", "role"));
                    String name = string(n, p, "name");
                    if (!userNames.add(name)) throw error(p + ".name", ": duplicate user '" + name + "'");
                    String cls = string(n, p, "class");
                    if (!classNames.isEmpty() && !classNames.contains(cls))
                        throw error(p + ".class", ": unknown class '" + cls + "' (the seed defines " + classNames + ")");
                    Future<String> hash = passwordHash(n, p, hashing);
                    Role role = n.has("role") ? build(p, () -> Role.parse("role", string(n, p, "role"))) : Role.USER;
                    pending.add(() -> build(p, () -> new User(name, cls, number(n, p, "rate"), joined(hash), role)));
                }
                for (Supplier<User> u : pending) users.add(u.get());
            } finally {
                hashing.shutdownNow();
            }

            List<ConcreteService> services = new ArrayList<>();
            Set<String> serviceNames = new HashSet<>();
            i = 0;
            for (JsonNode n : list(root, "services")) {
                String p = "services[" + i++ + "]";
                fields(n, p, Set.of("name", "task", "composite", "endpoint", "responseTime", "availability", "cost", "maxRate", "mapping"));
                String name = string(n, p, "name");
                if (!serviceNames.add(name)) throw error(p + ".name", ": duplicate concrete service '" + name + "'");
                TaskRef task = task(n, p, defaultComposite);
                URI endpoint = uri(n, p, "endpoint");
                PayloadMapping mapping = n.has("mapping") ? mapping(n.get("mapping"), p + ".mapping") : PayloadMapping.IDENTITY;
                services.add(build(p, () -> new ConcreteService(name, task, endpoint, new ProviderSla(number(n, p, "responseTime"),
                        number(n, p, "availability"), number(n, p, "cost"), number(n, p, "maxRate")), mapping)));
            }

            Plan plan = root.has("plan") && !root.get("plan").isNull() ? plan(root.get("plan"), defaultComposite, idempotent, stateful) : null;
            return new Seed(source, classes, users, services, idempotent, stateful, callbacks, overRates, plan);
        }

        private Plan plan(JsonNode n, String defaultComposite, Map<TaskRef, Boolean> idempotent, Map<TaskRef, Boolean> stateful) {
            String p = "plan";
            fields(n, p, Set.of("reason", "bindings"));
            String reason = n.has("reason") ? string(n, p, "reason") : "initial plan from " + source;
            Map<Plan.Key, List<Plan.Share>> bindings = new LinkedHashMap<>();
            int i = 0;
            for (JsonNode b : list(n, "bindings", p)) {
                String bp = p + ".bindings[" + i++ + "]";
                fields(b, bp, Set.of("class", "task", "composite", "shares"));
                Plan.Key key = new Plan.Key(string(b, bp, "class"), task(b, bp, defaultComposite));
                List<Plan.Share> shares = new ArrayList<>();
                int j = 0;
                for (JsonNode s : list(b, "shares", bp)) {
                    String sp = bp + ".shares[" + j++ + "]";
                    fields(s, sp, Set.of("implementation", "fraction"));
                    String impl = string(s, sp, "implementation");
                    Implementation implementation = build(sp + ".implementation", () -> Implementation.parse(impl));
                    // 1-out-of-n sends the same call to every member: for a task that is not
                    // idempotent (a payment) that is a second charge (docs/model.md, "Idempotent tasks")
                    if (implementation.pattern() == Implementation.Pattern.PARALLEL && !idempotent.getOrDefault(key.task(), false))
                        throw error(sp + ".implementation", ": " + impl + " calls every member at once, but task " + key.task().name()
                                + " is not idempotent (declare it under tasks: with idempotent: true if a second call is safe)");
                    if (implementation.pattern() == Implementation.Pattern.HEDGED && !idempotent.getOrDefault(key.task(), false))
                        throw error(sp + ".implementation", ": " + impl + " calls its second member while the first may still answer, but task "
                                + key.task().name() + " is not idempotent (declare it under tasks: with idempotent: true if a second call is safe)");
                    // a stateful partner's conversation stays with one provider (docs/model.md, "Stateful partners")
                    if (implementation.pattern() != Implementation.Pattern.SINGLE && stateful.getOrDefault(key.task(), false))
                        throw error(sp + ".implementation", ": " + impl + " calls more than one provider, but task " + key.task().name()
                                + " is stateful: its conversation stays with one provider (give single services)");
                    shares.add(new Plan.Share(implementation, number(s, sp, "fraction")));
                }
                if (bindings.put(key, shares) != null) throw error(bp, ": a second binding for class " + key.serviceClass() + " and task " + key.task());
            }
            return new Plan(0, Instant.now(), bindings, Map.of(), 0, "seed", 0, List.of(), reason);
        }

        private PayloadMapping mapping(JsonNode n, String p) {
            fields(n, p, Set.of("operation", "soapAction", "request", "reply"));
            return new PayloadMapping(n.has("operation") ? string(n, p, "operation") : null,
                    n.has("soapAction") ? string(n, p, "soapAction") : null, names(n, p, "request"), names(n, p, "reply"));
        }

        private Map<String, String> names(JsonNode n, String p, String field) {
            Map<String, String> out = new LinkedHashMap<>();
            if (!n.has(field) || n.get(field).isNull()) return out;
            JsonNode m = n.get(field);
            if (!m.isObject()) throw error(p + "." + field, " must be a mapping of \"{namespace}old\": \"{namespace}new\"");
            for (Iterator<Map.Entry<String, JsonNode>> it = m.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isTextual()) throw error(p + "." + field + "." + e.getKey(), " must be a string");
                out.put(substitute(e.getKey(), p + "." + field), substitute(e.getValue().asText(), p + "." + field + "." + e.getKey()));
            }
            return out;
        }

        private static String joined(Future<String> hash) {
            try {
                return hash.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while hashing the seed's passwords", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }

        private Future<String> passwordHash(JsonNode n, String p, ExecutorService hashing) {
            int given = (n.has("password") ? 1 : 0) + (n.has("passwordEnv") ? 1 : 0) + (n.has("passwordHash") ? 1 : 0);
            if (given != 1) throw error(p, ": give exactly one of password, passwordEnv, passwordHash");
            if (n.has("passwordHash")) {
                String h = string(n, p, "passwordHash");
                if (!PasswordHasher.isHash(h)) throw error(p + ".passwordHash", " is not a PasswordHasher hash (pbkdf2-sha256$...)");
                return CompletableFuture.completedFuture(h);
            }
            String plain;
            if (n.has("password")) {
                JsonNode v = n.get("password");
                if (!v.isValueNode() || v.isNull()) throw error(p + ".password", " must be a string");
                plain = substitute(v.asText(), p + ".password");
            } else {
                String var = string(n, p, "passwordEnv");
                plain = lookup.apply(var);
                if (plain == null) throw error(p + ".passwordEnv", ": environment variable " + var + " is not set");
            }
            if (plain.isEmpty()) throw error(p + ".password", " must not be empty");
            return hashing.submit(() -> PasswordHasher.hash(plain.toCharArray()));
        }

        private TaskRef task(JsonNode n, String p, String defaultComposite) {
            String task = string(n, p, "task");
            String composite = n.has("composite") ? string(n, p, "composite") : defaultComposite;
            if (composite == null) throw error(p + ".composite", " is missing (and there is no top-level composite:)");
            if (!task.contains(".")) throw error(p + ".task", " must be partnerLink.operation, was '" + task + "'");
            return new TaskRef(composite, task);
        }

        private URI uri(JsonNode n, String p, String field) {
            String s = string(n, p, field);
            try {
                URI u = new URI(s);
                if (!u.isAbsolute() || u.getHost() == null) throw error(p + "." + field, " must be an absolute URL with a host, was '" + s + "'");
                return u;
            } catch (URISyntaxException e) {
                throw error(p + "." + field, " is not a URL: " + e.getMessage());
            }
        }

        private Iterable<JsonNode> list(JsonNode n, String field) {
            return list(n, field, "");
        }

        private Iterable<JsonNode> list(JsonNode n, String field, String p) {
            JsonNode v = n.get(field);
            if (v == null || v.isNull()) return List.of();
            if (!v.isArray()) throw error((p.isEmpty() ? "" : p + ".") + field, " must be a list");
            return v;
        }

        private void fields(JsonNode n, String p, Set<String> allowed) {
            if (!n.isObject()) throw error(p, (p.isEmpty() ? "" : " ") + "must be a mapping");
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!allowed.contains(f))
                    throw error((p.isEmpty() ? "" : p + ".") + f, ": unknown field (expected one of " + new java.util.TreeSet<>(allowed) + ")");
            }
        }

        private String string(JsonNode n, String p, String field) {
            JsonNode v = n.get(field);
            String path = (p.isEmpty() ? "" : p + ".") + field;
            if (v == null || v.isNull()) throw error(path, " is missing");
            if (!v.isValueNode()) throw error(path, " must be a string");
            String s = substitute(v.asText(), path).strip();
            if (s.isEmpty()) throw error(path, " must not be empty");
            return s;
        }

        private double number(JsonNode n, String p, String field) {
            JsonNode v = n.get(field);
            String path = (p.isEmpty() ? "" : p + ".") + field;
            if (v == null || v.isNull()) throw error(path, " is missing");
            if (!v.isNumber()) throw error(path, " must be a number, was '" + v.asText() + "'");
            return v.asDouble();
        }

        private String substitute(String s, String path) {
            Matcher m = VARIABLE.matcher(s);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                String value = lookup.apply(m.group(1));
                if (value == null) throw error(path, ": unknown variable ${" + m.group(1) + "} (not given by the caller nor in the environment)");
                m.appendReplacement(out, Matcher.quoteReplacement(value));
            }
            m.appendTail(out);
            return out.toString();
        }

        /** Model constructors name the field in their IllegalArgumentException; prefix the path. */
        private <T> T build(String p, java.util.function.Supplier<T> constructor) {
            try {
                return constructor.get();
            } catch (IllegalArgumentException e) {
                String m = String.valueOf(e.getMessage());
                throw error(p + (m.matches("[a-zA-Z]+ must .*") ? "." : ": "), m);
            }
        }
    }
}
