package io.moses.model;

import java.util.List;

/**
 * An implementation J of a task (docs/model.md, "Implementations"): one concrete service, a 1-out-of-n
 * parallel set, or an ordered alternate tuple. Members are concrete-service names.
 */
public record Implementation(Pattern pattern, List<String> members) {
    public enum Pattern { SINGLE, PARALLEL, ALTERNATE }

    public Implementation {
        members = List.copyOf(members);
        if (members.isEmpty()) throw new IllegalArgumentException("an implementation needs a member");
        if (pattern == Pattern.SINGLE && members.size() != 1)
            throw new IllegalArgumentException("a single implementation has exactly one member");
        if (pattern != Pattern.SINGLE && members.size() < 2)
            throw new IllegalArgumentException(pattern + " needs at least two members");
    }

    public static Implementation single(String service) {
        return new Implementation(Pattern.SINGLE, List.of(service));
    }

    /** Compact text: {@code a}, {@code par(a,b)}, {@code alt(a,b)}. */
    @Override
    public String toString() {
        return switch (pattern) {
            case SINGLE -> members.get(0);
            case PARALLEL -> "par(" + String.join(",", members) + ")";
            case ALTERNATE -> "alt(" + String.join(",", members) + ")";
        };
    }

    /** Parses {@link #toString()}'s form. */
    public static Implementation parse(String text) {
        String t = text.strip();
        if (t.startsWith("par(") && t.endsWith(")"))
            return new Implementation(Pattern.PARALLEL, List.of(t.substring(4, t.length() - 1).split(",")));
        if (t.startsWith("alt(") && t.endsWith(")"))
            return new Implementation(Pattern.ALTERNATE, List.of(t.substring(4, t.length() - 1).split(",")));
        return single(t);
    }
}
