package io.moses.ode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Method;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ode.jacob.ChannelListener;
import org.apache.ode.jacob.soup.Comm;
import org.apache.ode.jacob.soup.CommGroup;
import org.apache.ode.jacob.soup.CommRecv;
import org.apache.ode.jacob.vpu.ExecutionQueueImpl;

/**
 * ODE's execution queue of one process instance (JACOB's "soup"), whose channel listeners share
 * their class's set of methods.
 *
 * <p>Every step of a BPEL activity waits on channels through a new listener object, and when a
 * message meets it JACOB looks the method up by name in the listener's set of methods
 * ({@code ChannelListener.getImplementedMethods}). ODE makes that set once per listener object,
 * from the channel interfaces of its class, copying every {@code Method} by reflection: a set
 * that depends on the class alone, made hundreds of times a request (a tenth of the bytes the
 * engine allocated for a trip-planner request: docs/benchmarks.md). Here the first
 * listener of a class makes it, by ODE's own code, and the later ones are given that set before
 * the queue matches them: the same methods, made once. The set is immutable, and its
 * {@code Method}s are only read and invoked, which any thread may share.
 *
 * <p>ODE keeps the set in a private field of {@code ChannelListener} ({@code _implementedMethods},
 * transient, filled on first use), reached here by a {@link VarHandle}; it has no other setter.
 */
public final class BrokerExecutionQueue extends ExecutionQueueImpl {
    private static final VarHandle IMPLEMENTED_METHODS = implementedMethods();
    /** Each listener class's methods; the classes are ODE's runtime's, a few hundred at most. */
    private static final Map<Class<?>, Set<Method>> METHODS = new ConcurrentHashMap<>();

    public BrokerExecutionQueue() {
        super(null); // as ODE's runtime context makes its own: the VPU sets the class loader
    }

    @Override
    public void add(CommGroup group) {
        for (Iterator<Comm> i = group.getElements(); i.hasNext();) {
            if (i.next() instanceof CommRecv recv) shareMethods(recv.getContinuation());
        }
        super.add(group);
    }

    private static void shareMethods(ChannelListener<?> listener) {
        if (IMPLEMENTED_METHODS.get(listener) != null) return; // it has its set: registered before, or matched
        Set<Method> methods = METHODS.get(listener.getClass());
        if (methods == null) {
            // ODE's own set, made by ODE's code, kept as an immutable JDK set: JACOB iterates it for
            // every message (a look-up by name); a HashSet's iterators showed in the engine's
            // allocation profile, this one's did not
            Set<Method> made = Set.copyOf(listener.getImplementedMethods());
            methods = Objects.requireNonNullElse(METHODS.putIfAbsent(listener.getClass(), made), made);
        }
        IMPLEMENTED_METHODS.set(listener, methods);
    }

    private static VarHandle implementedMethods() {
        try {
            return MethodHandles.privateLookupIn(ChannelListener.class, MethodHandles.lookup())
                    .findVarHandle(ChannelListener.class, "_implementedMethods", Set.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("ODE's ChannelListener keeps no _implementedMethods set: not ODE 1.3.7's JACOB", e);
        }
    }
}
