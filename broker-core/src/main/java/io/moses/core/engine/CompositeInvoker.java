package io.moses.core.engine;

import java.time.Duration;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * What the front-end needs of the engine: one composite request run to its outcome. The
 * front-end depends on this, not on {@link BpelEngine}, so that it can be tested and changed
 * without the engine behind it.
 */
@FunctionalInterface
public interface CompositeInvoker {
    /**
     * Runs {@code operation} of the provided {@code service} with the request {@code body} for a
     * caller of {@code serviceClass}; waits at most {@code timeout} for the reply.
     */
    CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, Duration timeout);

    /**
     * The same for a request above its user's agreed rate served best-effort when
     * {@code bestEffort}: it runs like any other, but counts in none of the class's SLA figures.
     */
    default CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, Duration timeout,
                                    boolean bestEffort) {
        return invoke(service, operation, body, serviceClass, timeout);
    }

    /**
     * The same for a request of user {@code caller} (null: anonymous): a conversation its request
     * starts belongs to that user.
     */
    default CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, String caller, Duration timeout,
                                    boolean bestEffort) {
        return invoke(service, operation, body, serviceClass, timeout, bestEffort);
    }

    /**
     * What a message whose address named {@code call} gets instead of being delivered: the late
     * callback of a call the broker sent to another provider is discarded (an empty reply); null
     * for any other message, to be delivered.
     */
    default CompositeOutcome discarded(QName service, String operation, String call) {
        return null;
    }

    /** Whether a message of {@code operation} may start a new instance of the process that provides {@code service}. */
    default boolean startsInstances(QName service, String operation) {
        return true;
    }

    /**
     * The same for a message whose address named {@code call} (null: none), the number of a
     * partner call of the broker's: an asynchronous task's callback.
     */
    default CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, String caller, Duration timeout,
                                    boolean bestEffort, String call) {
        return invoke(service, operation, body, serviceClass, caller, timeout, bestEffort);
    }
}
