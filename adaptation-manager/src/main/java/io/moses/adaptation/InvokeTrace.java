package io.moses.adaptation;

import io.moses.model.Implementation;
import java.net.URI;
import java.util.Map;

/**
 * What a tracer is told of one invoke ({@link Invocation#trace()}): the implementation the
 * binding chose, and every call it sent to a concrete service, with why it was sent and how it
 * ended. {@link #NONE}, the default, is told nothing and costs nothing: the binding knows no
 * tracing library.
 */
public interface InvokeTrace {
    /** Tracing off. */
    InvokeTrace NONE = new InvokeTrace() {};

    /** Why a call to a concrete service was sent. */
    enum Why {
        /** the implementation the plan (or the static binding) chose */
        PLAN,
        /** the invoke's call went again to another provider after a failure */
        RETRY,
        /** to a service the plan does not use, to keep its estimate current */
        EXPLORATION,
        /** to an ejected service, whose answer brings it back */
        TRIAL
    }

    /** The binding executes {@code implementation} of plan {@code planVersion} (null: no plan, a static binding). */
    default void bound(Implementation implementation, Long planVersion) {}

    /**
     * A call to {@code provider} (a concrete service's name, or the WSDL's address) at
     * {@code endpoint} is about to be sent; {@code hedge}: it is a hedge's second call.
     */
    default Call call(String provider, URI endpoint, Why why, boolean hedge) {
        return Call.NONE;
    }

    /** The invoke ended with {@code outcome} (a one-way or asynchronous one: its request was sent). */
    default void ended(InvokeOutcome outcome) {}

    /**
     * The invoke's span current on this thread until the scope is closed: its trace and span ids
     * in the log lines this thread writes, and in what it records meanwhile (a latency's exemplar);
     * for work of the invoke on a thread that is not its request's (a timer's, a reply's).
     */
    default Scope logged() {
        return Scope.NONE;
    }

    /** Where a trace's ids are in the log lines of this thread; closing it puts back what was there. */
    interface Scope extends AutoCloseable {
        Scope NONE = () -> {};

        @Override
        void close();
    }

    /** One call to a concrete service. */
    interface Call {
        Call NONE = new Call() {};

        /** The headers the call's request carries so the provider joins the trace (W3C {@code traceparent}). */
        default Map<String, String> headers() {
            return Map.of();
        }

        /** The call's outcome arrived, now: the end of its span, before whatever the outcome leads to runs. */
        default void finished() {}

        /**
         * The call ended as {@code end}; {@code discarded}: its outcome was not used, another
         * member of its implementation had answered first.
         */
        default void ended(CallEnd end, boolean discarded) {}

        /** The call's trace and span ids in the log lines this thread writes until closed (what its outcome leads to, an ejection). */
        default Scope logged() {
            return Scope.NONE;
        }
    }
}
