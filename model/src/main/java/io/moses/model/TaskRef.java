package io.moses.model;

import java.util.Objects;

/**
 * An abstract task S_i of one composite service: a partner-link operation that the process
 * invokes. Two invokes of the same partner-link operation are the same task.
 *
 * @param composite the composite service's name (the BPEL process's local name)
 * @param name      {@code partnerLink.operation}
 */
public record TaskRef(String composite, String name) implements Comparable<TaskRef> {
    public TaskRef {
        Objects.requireNonNull(composite, "composite");
        Objects.requireNonNull(name, "name");
    }

    public static TaskRef of(String composite, String partnerLink, String operation) {
        return new TaskRef(composite, partnerLink + "." + operation);
    }

    public String partnerLink() {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(0, dot);
    }

    public String operation() {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(dot + 1);
    }

    @Override
    public int compareTo(TaskRef o) {
        int c = composite.compareTo(o.composite);
        return c != 0 ? c : name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return composite + "/" + name;
    }
}
