package io.moses.core.engine;

import java.util.List;

/**
 * The engine's side of conversations across replicas: the correlation values its instances
 * initiate and end, and the values an incoming message carries.
 */
public interface Conversations {
    /**
     * The correlation values of a message, computed as ODE will when it routes it.
     *
     * @param process   the process type, as text
     * @param keys      the values, in ODE's canonical form (correlation set name and values)
     * @param mustMatch true when the message can only go to an existing instance (a non-initiating set)
     * @param starts    the values a new instance it starts may initiate (an operation that creates instances)
     */
    record Keys(String process, List<String> keys, boolean mustMatch, List<String> starts) {
        public Keys(String process, List<String> keys, boolean mustMatch) {
            this(process, keys, mustMatch, List.of());
        }
    }

    /**
     * An instance of {@code process} (its type, as text) initiated the correlation value {@code key};
     * {@code user} sent the message that started it (null: anonymous).
     */
    void initiated(String process, String key, long instance, String user);

    /** The instance ended: its values route nowhere any more ({@code durable}: its process keeps instances in the database). */
    void ended(long instance, boolean durable);
}
