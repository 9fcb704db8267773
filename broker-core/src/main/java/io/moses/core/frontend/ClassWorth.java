package io.moses.core.frontend;

import io.moses.model.ServiceClass;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a request is worth to the broker when it must refuse some: its class's rank, by the
 * priority the operator set ({@code --class-priority}; a class it does not name has priority 0),
 * then by price per request. A caller with no class (anonymous, failed authentication, a class
 * not known yet) is worth less than every class, and a request above its user's agreed rate
 * served best-effort less than any other. Ranked off the request path from the cached
 * classes; the request path reads one immutable map.
 */
public final class ClassWorth {
    /** The worth of a request of no known class: below every class's rank (ranks start at 0). */
    static final double LEAST = -1;
    /** The worth of a request above its user's agreed rate served best-effort: below every caller's. */
    static final double BEST_EFFORT = -2;
    static final String OPTION = "--class-priority";

    private final Map<String, Double> priorities;
    /** {@code --class-priority equal}: every caller worth the same, so refused and served in arrival order. */
    private final boolean equal;
    private static final String EQUAL = "equal";
    private volatile Map<String, Double> ranks = Map.of();

    /** By price alone. */
    public ClassWorth() {
        this(Map.of());
    }

    /** @param priorities per class name, &gt;= 0; higher is refused later, whatever the price */
    public ClassWorth(Map<String, Double> priorities) {
        for (var e : priorities.entrySet())
            if (!(e.getValue() >= 0) || e.getValue().isInfinite())
                throw new IllegalArgumentException(OPTION + ": the priority of class " + e.getKey() + " must be a number >= 0, got " + e.getValue());
        this.priorities = Map.copyOf(priorities);
        this.equal = false;
    }

    private ClassWorth(boolean equal) {
        this.priorities = Map.of();
        this.equal = equal;
    }

    /**
     * Every caller worth the same, whatever its class: refused and served in arrival order, as
     * before classes were ranked ({@code --class-priority equal}; the baseline of loadtest/bench-shed.sh).
     */
    static ClassWorth equal() {
        return new ClassWorth(true);
    }

    Map<String, Double> priorities() {
        return priorities;
    }

    /** Off the request path (each knowledge refresh): the classes there are now. */
    public void update(Collection<ServiceClass> classes) {
        Comparator<ServiceClass> order = Comparator.<ServiceClass>comparingDouble(c -> priorities.getOrDefault(c.name(), 0.0))
                .thenComparingDouble(ServiceClass::price);
        List<ServiceClass> sorted = new ArrayList<>(classes);
        sorted.sort(order);
        Map<String, Double> m = new HashMap<>();
        int rank = -1;
        ServiceClass previous = null;
        for (ServiceClass c : sorted) {
            if (previous == null || order.compare(previous, c) != 0) rank++; // equal priority and price: equal worth
            m.put(c.name(), (double) rank);
            previous = c;
        }
        ranks = Map.copyOf(m);
    }

    double of(String serviceClass) {
        if (equal) return 0;
        if (serviceClass == null) return LEAST;
        Double r = ranks.get(serviceClass);
        return r == null ? LEAST : r;
    }

    /** Takes {@code --class-priority NAME=N,...} (or {@code equal}) out of a command line; the rest in {@code rest}. */
    public static Parsed parse(String[] args) {
        Map<String, Double> priorities = new LinkedHashMap<>();
        List<String> rest = new ArrayList<>();
        boolean equal = false;
        for (int i = 0; i < args.length; i++) {
            if (!args[i].equals(OPTION)) {
                rest.add(args[i]);
                continue;
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException(OPTION + " needs CLASS=PRIORITY,... or " + EQUAL);
            if (args[i + 1].trim().equals(EQUAL)) {
                equal = true;
                i++;
                continue;
            }
            for (String item : args[++i].split(",")) {
                int eq = item.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException(OPTION + " takes CLASS=PRIORITY,..., got '" + item + "'");
                String name = item.substring(0, eq).trim();
                if (name.isEmpty()) throw new IllegalArgumentException(OPTION + " takes CLASS=PRIORITY,..., got '" + item + "'");
                double p;
                try {
                    p = Double.parseDouble(item.substring(eq + 1).trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(OPTION + ": the priority of class " + name + " must be a number >= 0, got '"
                            + item.substring(eq + 1) + "'");
                }
                priorities.put(name, p);
            }
        }
        if (equal && !priorities.isEmpty())
            throw new IllegalArgumentException(OPTION + " " + EQUAL + " gives every class the same worth: it takes no CLASS=PRIORITY as well");
        return new Parsed(equal ? equal() : new ClassWorth(priorities), rest.toArray(String[]::new));
    }

    public record Parsed(ClassWorth worth, String[] rest) {}
}
