package io.moses.model;

import java.util.List;

/**
 * An implementation J of a task (docs/model.md, "Implementations"): one concrete service, a 1-out-of-n
 * parallel set, an ordered alternate tuple, or a hedged pair. Members are concrete-service names.
 *
 * @param hedgeDelay for a hedged pair, d [s]: how long the first member may go unanswered before
 *                   the second is called too; 0 for every other pattern
 */
public record Implementation(Pattern pattern, List<String> members, double hedgeDelay) {
    public enum Pattern { SINGLE, PARALLEL, ALTERNATE, HEDGED }

    public Implementation {
        members = List.copyOf(members);
        if (members.isEmpty()) throw new IllegalArgumentException("an implementation needs a member");
        if (pattern == Pattern.SINGLE && members.size() != 1)
            throw new IllegalArgumentException("a single implementation has exactly one member");
        if (pattern != Pattern.SINGLE && members.size() < 2)
            throw new IllegalArgumentException(pattern + " needs at least two members");
        if (pattern == Pattern.HEDGED) {
            if (members.size() != 2) throw new IllegalArgumentException("a hedged implementation has exactly two members");
            if (members.get(0).equals(members.get(1))) throw new IllegalArgumentException("a hedged pair needs two different services");
            if (!(hedgeDelay > 0) || !Double.isFinite(hedgeDelay))
                throw new IllegalArgumentException("a hedged implementation needs a delay d > 0 in seconds, as in hedge(a,b;d=0.25)");
        } else if (hedgeDelay != 0) throw new IllegalArgumentException("only a hedged implementation has a delay");
    }

    public Implementation(Pattern pattern, List<String> members) {
        this(pattern, members, 0);
    }

    public static Implementation single(String service) {
        return new Implementation(Pattern.SINGLE, List.of(service));
    }

    /** hedge(first,second;d=delay): call first; if it has not answered after delay seconds, call second too. */
    public static Implementation hedged(String first, String second, double delay) {
        return new Implementation(Pattern.HEDGED, List.of(first, second), delay);
    }

    /** Compact text: {@code a}, {@code par(a,b)}, {@code alt(a,b)}, {@code hedge(a,b;d=0.25)} (d in seconds). */
    @Override
    public String toString() {
        return switch (pattern) {
            case SINGLE -> members.get(0);
            case PARALLEL -> "par(" + String.join(",", members) + ")";
            case ALTERNATE -> "alt(" + String.join(",", members) + ")";
            case HEDGED -> "hedge(" + String.join(",", members) + ";d=" + hedgeDelay + ")";
        };
    }

    /** Parses {@link #toString()}'s form. */
    public static Implementation parse(String text) {
        String t = text.strip();
        if (t.startsWith("par(") && t.endsWith(")"))
            return new Implementation(Pattern.PARALLEL, List.of(t.substring(4, t.length() - 1).split(",")));
        if (t.startsWith("alt(") && t.endsWith(")"))
            return new Implementation(Pattern.ALTERNATE, List.of(t.substring(4, t.length() - 1).split(",")));
        if (t.startsWith("hedge(") && t.endsWith(")")) {
            String inner = t.substring(6, t.length() - 1);
            int semi = inner.lastIndexOf(";d=");
            if (semi < 0) throw new IllegalArgumentException("a hedged implementation names its delay in seconds: hedge(a,b;d=0.25), not " + t);
            double d;
            try {
                d = Double.parseDouble(inner.substring(semi + 3).strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the delay of " + t + " is not a number of seconds");
            }
            return new Implementation(Pattern.HEDGED, List.of(inner.substring(0, semi).split(",")), d);
        }
        return single(t);
    }
}
