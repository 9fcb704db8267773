package io.moses.model;

import java.util.List;
import java.util.Objects;

/**
 * A deployed composite service: the behavioral model the Composition Manager builds from one
 * BPEL process.
 *
 * @param name      the process's local name
 * @param namespace the process's target namespace
 * @param tasks     the distinct tasks the process invokes, in document order
 * @param root      the activity tree
 */
public record CompositeService(String name, String namespace, List<TaskRef> tasks, Activity root) {
    public CompositeService {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(root, "root");
        tasks = List.copyOf(tasks);
    }
}
