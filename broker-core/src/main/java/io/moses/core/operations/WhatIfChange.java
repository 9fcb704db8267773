package io.moses.core.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One hypothetical change an operator asks about (POST /admin/what-if): applied to a copy of the
 * planning input, never to the knowledge base. docs/model.md ("What if") says which inputs each
 * one alters. Each change has a JSON form ({@code {"kind":"slower","service":"flight-a","factor":2}})
 * and a text form ({@code "slower flight-a 2x"}, what {@code moses plan --what-if} sends); both are
 * parsed here, and a bad one is refused with an IllegalArgumentException naming the field.
 */
sealed interface WhatIfChange {

    /** The same input with this change made; {@code users} by name (for a rate change). */
    PlanningInput applyTo(PlanningInput in, Map<String, User> users);

    /** The change in its text form. */
    String describe();

    /**
     * The admin API call that makes this change for real (what the console's Apply sends), from
     * {@code in}, the input before it: {@code method}, {@code path}, {@code body} and, where the
     * operator must add fields to the body, {@code asks}; or {@code none}, saying why no call does.
     */
    Map<String, Object> action(PlanningInput in);

    /** A concrete service down or taken out: not a candidate. */
    record Down(String service) implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            findService(in, service, "service");
            Set<String> down = new HashSet<>(in.down());
            down.add(service);
            return with(in, in.services(), down, in.observed(), in.successSamples(), in.classes(), in.classLoad());
        }

        public String describe() {
            return "down " + service;
        }

        public Map<String, Object> action(PlanningInput in) {
            return call("POST", "/admin/concrete-services/" + segment(service) + "/out", Map.of("reason", "what-if applied: " + describe()));
        }
    }

    /** Which provider QoS a {@link Degraded} change scales. */
    enum Quality { RESPONSE_TIME, AVAILABILITY, COST }

    /**
     * A service slower, less available or costlier: by a factor (response time and cost
     * multiplied by it; unavailability 1 - a multiplied by it), or to a value. Both the provider's
     * SLA and what the monitors observed change, since the optimizer plans with the observation.
     */
    record Degraded(String service, Quality quality, Double factor, Double to) implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            ConcreteService s = findService(in, service, "service");
            Observation.ServiceQos o = in.observed().get(service);
            ProviderSla sla = s.sla();
            Map<String, Observation.ServiceQos> observed = new HashMap<>(in.observed());
            Map<String, double[]> samples = new HashMap<>(in.successSamples());
            ProviderSla changed;
            switch (quality) {
                case RESPONSE_TIME -> {
                    double now = o != null ? o.responseTime() : sla.responseTime();
                    double f = factor != null ? factor : to / now;
                    changed = new ProviderSla(sla.responseTime() * f, sla.availability(), sla.cost(), sla.maxRate());
                    if (o != null) observed.put(service, new Observation.ServiceQos(service, o.responseTime() * f, o.availability(), o.samples(), o.at()));
                    double[] lat = samples.get(service);
                    if (lat != null) {
                        double[] scaled = lat.clone();
                        for (int i = 0; i < scaled.length; i++) scaled[i] *= f;
                        samples.put(service, scaled);
                    }
                }
                case AVAILABILITY -> {
                    changed = new ProviderSla(sla.responseTime(), availability(sla.availability()), sla.cost(), sla.maxRate());
                    if (o != null) observed.put(service, new Observation.ServiceQos(service, o.responseTime(), availability(o.availability()), o.samples(), o.at()));
                }
                default -> changed = new ProviderSla(sla.responseTime(), sla.availability(), factor != null ? sla.cost() * factor : to, sla.maxRate());
            }
            List<ConcreteService> services = new ArrayList<>();
            for (ConcreteService c : in.services())
                services.add(c.name().equals(service) ? new ConcreteService(c.name(), c.task(), c.endpoint(), changed, c.mapping()) : c);
            return with(in, services, in.down(), observed, samples, in.classes(), in.classLoad());
        }

        public Map<String, Object> action(PlanningInput in) {
            if (quality != Quality.COST) // the optimizer plans with the monitors' observations, which no call sets
                return Map.of("none", "what a provider delivers is measured by the monitors, not set by the broker: a "
                        + (quality == Quality.RESPONSE_TIME ? "slower" : "less available") + " provider is a question only");
            double cost = factor != null ? findService(in, service, "service").sla().cost() * factor : to;
            return call("PUT", "/admin/services/" + segment(service), Map.of("cost", cost)); // its provider SLA's cost
        }

        private double availability(double a) {
            return factor != null ? Math.max(1e-6, 1 - (1 - a) * factor) : to;
        }

        public String describe() {
            String verb = switch (quality) {
                case RESPONSE_TIME -> "slower";
                case AVAILABILITY -> "less-available";
                case COST -> "costlier";
            };
            return verb + " " + service + (factor != null ? " " + factor + "x" : " to " + to);
        }
    }

    /** A provider the broker does not have yet, for one task, with its SLA. */
    record NewProvider(String service, TaskRef task, ProviderSla sla) implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            for (ConcreteService c : in.services())
                if (c.name().equals(service)) throw new IllegalArgumentException("service: concrete service " + service + " exists already");
            TaskRef t = task.composite().isEmpty() ? resolve(in) : task;
            if (in.composites().stream().noneMatch(c -> c.name().equals(t.composite()) && c.tasks().contains(t)))
                throw new IllegalArgumentException("task: no task " + t.name() + " in composite " + t.composite());
            List<ConcreteService> services = new ArrayList<>(in.services());
            services.add(new ConcreteService(service, t, URI.create("http://what-if.invalid/" + service), sla, null));
            return with(in, services, in.down(), in.observed(), in.successSamples(), in.classes(), in.classLoad());
        }

        /** The task by its name alone: the one composite that has it. */
        private TaskRef resolve(PlanningInput in) {
            List<TaskRef> found = new ArrayList<>();
            for (CompositeService c : in.composites())
                for (TaskRef t : c.tasks()) if (t.name().equals(task.name())) found.add(t);
            if (found.size() != 1)
                throw new IllegalArgumentException("task: " + (found.isEmpty() ? "no task " + task.name() + " in the planned composites"
                        : "task " + task.name() + " is in several composites " + found + "; name the composite"));
            return found.get(0);
        }

        public Map<String, Object> action(PlanningInput in) {
            return Map.of("none", "a real provider needs its endpoint: register it with the Service Manager "
                    + "(the Concrete services page, or POST /admin/services)");
        }

        public String describe() {
            return "add " + service + " " + task.name() + " r=" + sla.responseTime() + " a=" + sla.availability()
                    + " c=" + sla.cost() + " l=" + sla.maxRate();
        }
    }

    /** A class's SLA changed: the terms not given stay. */
    record ClassSla(String serviceClass, Double maxResponseTime, Double minAvailability, Double maxCost, Double price)
            implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            ServiceClass k = findClass(in, serviceClass);
            ServiceClass changed = new ServiceClass(k.name(), or(maxResponseTime, k.maxResponseTime()), or(minAvailability, k.minAvailability()),
                    or(maxCost, k.maxCost()), or(price, k.price()));
            List<ServiceClass> classes = new ArrayList<>();
            for (ServiceClass c : in.classes()) classes.add(c.name().equals(serviceClass) ? changed : c);
            return with(in, in.services(), in.down(), in.observed(), in.successSamples(), classes, in.classLoad());
        }

        public Map<String, Object> action(PlanningInput in) {
            Map<String, Object> body = new java.util.LinkedHashMap<>();
            if (maxResponseTime != null) body.put("maxResponseTime", maxResponseTime);
            if (minAvailability != null) body.put("minAvailability", minAvailability);
            if (maxCost != null) body.put("maxCost", maxCost);
            if (price != null) body.put("price", price);
            return call("PUT", "/admin/classes/" + segment(serviceClass), body);
        }

        private static double or(Double v, double dflt) {
            return v == null ? dflt : v;
        }

        public String describe() {
            return "class " + serviceClass + (maxResponseTime == null ? "" : " maxResponseTime=" + maxResponseTime)
                    + (minAvailability == null ? "" : " minAvailability=" + minAvailability)
                    + (maxCost == null ? "" : " maxCost=" + maxCost) + (price == null ? "" : " price=" + price);
        }
    }

    /** A new subscriber to a class at a rate: the class's load grows by it. */
    record Subscriber(String serviceClass, double rate) implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            findClass(in, serviceClass);
            return in.withLoad(serviceClass, in.load(serviceClass) + rate);
        }

        public String describe() {
            return "subscriber " + serviceClass + " " + rate;
        }

        /** The SLA Manager's Subscribe: a real subscriber has a name and a password, which the operator gives. */
        public Map<String, Object> action(PlanningInput in) {
            Map<String, Object> a = call("POST", "/admin/subscriptions", Map.of("serviceClass", serviceClass, "rate", rate));
            a.put("asks", List.of("user", "password"));
            return a;
        }
    }

    /** A subscriber's agreed rate changed: its class's load moves by the difference. */
    record Rate(String user, double rate) implements WhatIfChange {
        public PlanningInput applyTo(PlanningInput in, Map<String, User> users) {
            User u = users.get(user);
            if (u == null) throw new IllegalArgumentException("user: no user " + user);
            findClass(in, u.serviceClass());
            return in.withLoad(u.serviceClass(), Math.max(0, in.load(u.serviceClass()) - u.rate() + rate));
        }

        public String describe() {
            return "rate " + user + " " + rate;
        }

        /** The SLA Manager's ChangeSubscription. */
        public Map<String, Object> action(PlanningInput in) {
            return call("PUT", "/admin/subscriptions/" + segment(user), Map.of("rate", rate));
        }
    }

    // ---- parsing ----

    ObjectMapper JSON = new ObjectMapper();

    /**
     * The changes of a what-if request body: {@code {"changes":[...]}} whose items are JSON
     * changes or their text form.
     */
    static List<WhatIfChange> parseAll(JsonNode body) {
        if (body == null || !body.isObject()) throw new IllegalArgumentException("body: must be a JSON object {\"changes\":[...]}");
        JsonNode list = body.get("changes");
        if (list == null || !list.isArray()) throw new IllegalArgumentException("changes: must be a list of changes");
        if (list.isEmpty()) throw new IllegalArgumentException("changes: the list is empty; name at least one change");
        if (list.size() > 50) throw new IllegalArgumentException("changes: at most 50 changes, was " + list.size());
        List<WhatIfChange> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "changes[" + i + "]";
            try {
                JsonNode n = list.get(i);
                out.add(parse(n.isTextual() ? fromText(n.asText()) : n));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(field + "." + e.getMessage());
            }
        }
        return out;
    }

    /** One change in its JSON form; the message of a refusal starts with the field's name. */
    static WhatIfChange parse(JsonNode n) {
        if (n == null || !n.isObject()) throw new IllegalArgumentException("kind: a change is an object with a kind, or its text form");
        String kind = text(n, "kind");
        return switch (kind) {
            case "down", "out" -> new Down(text(n, "service"));
            case "slower" -> degraded(n, Quality.RESPONSE_TIME);
            case "less-available" -> degraded(n, Quality.AVAILABILITY);
            case "costlier" -> degraded(n, Quality.COST);
            case "add-provider", "add" -> {
                String composite = n.hasNonNull("composite") ? text(n, "composite") : "";
                ProviderSla sla;
                double r = number(n, "responseTime"), a = number(n, "availability"), c = number(n, "cost"), l = number(n, "maxRate");
                try {
                    sla = new ProviderSla(r, a, c, l);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(e.getMessage()); // the domain check names the field
                }
                yield new NewProvider(name(n, "service"), new TaskRef(composite, text(n, "task")), sla);
            }
            case "class-sla", "class" -> {
                ClassSla k = new ClassSla(text(n, "class"), optional(n, "maxResponseTime"), optional(n, "minAvailability"),
                        optional(n, "maxCost"), optional(n, "price"));
                if (k.maxResponseTime() == null && k.minAvailability() == null && k.maxCost() == null && k.price() == null)
                    throw new IllegalArgumentException("maxResponseTime: give at least one of maxResponseTime, minAvailability, maxCost, price");
                if (k.maxResponseTime() != null && k.maxResponseTime() <= 0) throw new IllegalArgumentException("maxResponseTime: must be > 0");
                if (k.minAvailability() != null && !(k.minAvailability() > 0 && k.minAvailability() < 1))
                    throw new IllegalArgumentException("minAvailability: must be in (0, 1)");
                if (k.maxCost() != null && k.maxCost() <= 0) throw new IllegalArgumentException("maxCost: must be > 0");
                if (k.price() != null && k.price() < 0) throw new IllegalArgumentException("price: must be >= 0");
                yield k;
            }
            case "subscriber" -> new Subscriber(text(n, "class"), nonNegative(n, "rate"));
            case "rate" -> new Rate(text(n, "user"), nonNegative(n, "rate"));
            default -> throw new IllegalArgumentException("kind: unknown change '" + kind
                    + "' (down, slower, less-available, costlier, add-provider, class-sla, subscriber, rate)");
        };
    }

    private static WhatIfChange degraded(JsonNode n, Quality q) {
        String service = text(n, "service");
        Double factor = optional(n, "factor"), to = optional(n, "to");
        if ((factor == null) == (to == null)) throw new IllegalArgumentException("factor: give either factor or to");
        if (factor != null && factor <= 0) throw new IllegalArgumentException("factor: must be > 0, was " + factor);
        if (to != null) {
            if (to < 0 || (q != Quality.COST && to == 0)) throw new IllegalArgumentException("to: must be > 0, was " + to);
            if (q == Quality.AVAILABILITY && to > 1) throw new IllegalArgumentException("to: an availability is in (0, 1], was " + to);
        }
        return new Degraded(service, q, factor, to);
    }

    /**
     * The text form as the JSON form: {@code down S}, {@code slower|less-available|costlier S 2x}
     * (or {@code S to 0.5}), {@code add S TASK r=.. a=.. c=.. l=..}, {@code class K maxResponseTime=..},
     * {@code subscriber K RATE}, {@code rate USER RATE}.
     */
    static ObjectNode fromText(String text) {
        String[] w = text.strip().split("\\s+");
        ObjectNode n = JSON.createObjectNode();
        if (w.length == 0 || w[0].isEmpty()) throw new IllegalArgumentException("kind: the change is empty");
        n.put("kind", w[0]);
        switch (w[0]) {
            case "down", "out" -> {
                arity(w, 2, "down SERVICE");
                n.put("service", w[1]);
            }
            case "slower", "less-available", "costlier" -> {
                if (w.length == 3 && w[2].endsWith("x")) {
                    n.put("service", w[1]);
                    n.put("factor", parseNumber(w[2].substring(0, w[2].length() - 1), "factor"));
                } else if (w.length == 4 && w[2].equals("to")) {
                    n.put("service", w[1]);
                    n.put("to", parseNumber(w[3], "to"));
                } else throw new IllegalArgumentException("factor: write '" + w[0] + " SERVICE 2x' or '" + w[0] + " SERVICE to VALUE'");
            }
            case "add", "add-provider" -> {
                if (w.length < 3) throw new IllegalArgumentException("service: write 'add SERVICE TASK r=.. a=.. c=.. l=..'");
                n.put("service", w[1]);
                n.put("task", w[2]);
                Map<String, String> names = Map.of("r", "responseTime", "a", "availability", "c", "cost", "l", "maxRate");
                for (int i = 3; i < w.length; i++) {
                    String[] kv = w[i].split("=", 2);
                    if (kv.length != 2) throw new IllegalArgumentException("responseTime: '" + w[i] + "' is not name=value");
                    String field = names.getOrDefault(kv[0], kv[0]);
                    if (field.equals("composite")) n.put(field, kv[1]);
                    else n.put(field, parseNumber(kv[1], field));
                }
            }
            case "class", "class-sla" -> {
                if (w.length < 3) throw new IllegalArgumentException("class: write 'class CLASS maxResponseTime=..'");
                n.put("class", w[1]);
                for (int i = 2; i < w.length; i++) {
                    String[] kv = w[i].split("=", 2);
                    if (kv.length != 2) throw new IllegalArgumentException("maxResponseTime: '" + w[i] + "' is not name=value");
                    n.put(kv[0], parseNumber(kv[1], kv[0]));
                }
            }
            case "subscriber" -> {
                arity(w, 3, "subscriber CLASS RATE");
                n.put("class", w[1]);
                n.put("rate", parseNumber(w[2], "rate"));
            }
            case "rate" -> {
                arity(w, 3, "rate USER RATE");
                n.put("user", w[1]);
                n.put("rate", parseNumber(w[2], "rate"));
            }
            default -> { } // parse() names the unknown kind
        }
        return n;
    }

    private static void arity(String[] w, int n, String form) {
        if (w.length != n) throw new IllegalArgumentException(form.split(" ")[1].toLowerCase() + ": write '" + form + "'");
    }

    private static double parseNumber(String s, String field) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + ": '" + s + "' is not a number");
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) throw new IllegalArgumentException(field + ": missing (a name)");
        return v.asText();
    }

    private static String name(JsonNode n, String field) {
        String s = text(n, field);
        if (!s.matches("[A-Za-z0-9._-]{1,100}")) throw new IllegalArgumentException(field + ": '" + s + "' is not a name (letters, digits, . _ -)");
        return s;
    }

    private static Double optional(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isNumber() || !Double.isFinite(v.asDouble())) throw new IllegalArgumentException(field + ": must be a number");
        return v.asDouble();
    }

    private static double number(JsonNode n, String field) {
        Double v = optional(n, field);
        if (v == null) throw new IllegalArgumentException(field + ": missing (a number)");
        return v;
    }

    private static double nonNegative(JsonNode n, String field) {
        double v = number(n, field);
        if (v < 0) throw new IllegalArgumentException(field + ": must be >= 0, was " + v);
        return v;
    }

    // ---- the actions ----

    private static Map<String, Object> call(String method, String path, Map<String, Object> body) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("method", method);
        m.put("path", path);
        m.put("body", body);
        return m;
    }

    /** A name as one segment of a URL path. */
    private static String segment(String name) {
        return java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    // ---- the planning input ----

    private static ConcreteService findService(PlanningInput in, String name, String field) {
        for (ConcreteService s : in.services()) if (s.name().equals(name)) return s;
        throw new IllegalArgumentException(field + ": no concrete service " + name);
    }

    private static ServiceClass findClass(PlanningInput in, String name) {
        for (ServiceClass k : in.classes()) if (k.name().equals(name)) return k;
        throw new IllegalArgumentException("class: no service class " + name);
    }

    private static PlanningInput with(PlanningInput in, List<ConcreteService> services, Set<String> down,
                                      Map<String, Observation.ServiceQos> observed, Map<String, double[]> samples,
                                      List<ServiceClass> classes, Map<String, Double> load) {
        return new PlanningInput(in.composites(), classes, load, services, down, observed, samples, in.failureDetection(),
                in.profiles(), in.visits(), in.settings(), in.idempotent(), in.stateful());
    }
}
