package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.ode.jacob.Channel;
import org.apache.ode.jacob.ChannelListener;
import org.apache.ode.jacob.JacobRunnable;
import org.apache.ode.jacob.vpu.JacobVPU;
import org.junit.jupiter.api.Test;

/** A JACOB program on the broker's queue, built as ODE's runtime builds its channels and listeners. */
class BrokerExecutionQueueTest {

    /** What the channel carries, and the channel, as ODE's generated channel interfaces are. */
    public interface Pinging {
        void ping(int n);
    }

    public interface Ping extends Channel, Pinging {}

    /** Its listener, as ODE's generated listener classes are: a listener is an anonymous subclass. */
    abstract static class PingListener extends ChannelListener<Ping> implements Pinging {
        PingListener(Ping channel) {
            super(channel);
        }
    }

    /** What each listener saw when its message came: the number, and its set of methods. */
    record Received(int n, Set<Method> methods) {}

    /** A listener that records its message and, below three, waits again through a new listener of its class. */
    static PingListener listener(Ping channel, List<Received> received) {
        return new PingListener(channel) {
            @Override
            public void ping(int n) {
                received.add(new Received(n, getImplementedMethods()));
                if (n < 3) {
                    object(listener(channel, received));
                    channel.ping(n + 1);
                }
            }
        };
    }

    @Test
    void listenersOfOneClassShareOneSetOfTheMethodsOdeFindsForThem() {
        List<Received> received = new ArrayList<>();
        Ping[] channel = new Ping[1];
        JacobVPU vpu = new JacobVPU();
        vpu.setContext(new BrokerExecutionQueue());
        vpu.inject(new JacobRunnable() {
            @Override
            public void run() {
                channel[0] = newChannel(Ping.class);
                object(listener(channel[0], received));
                channel[0].ping(1);
            }
        });
        while (vpu.execute()) { /* one reaction a step, until none is left */ }

        assertEquals(List.of(1, 2, 3), received.stream().map(Received::n).toList(), "every message met its listener, in order");
        Set<Method> shared = received.get(0).methods();
        assertSame(shared, received.get(1).methods(), "the second listener of the class got the first one's set");
        assertSame(shared, received.get(2).methods());

        Set<Method> odes = listener(channel[0], new ArrayList<>()).getImplementedMethods(); // a listener no queue saw: ODE's own
        assertNotSame(shared, odes);
        assertEquals(odes, new HashSet<>(shared), "the same methods as ODE finds for a listener of the class");
        assertEquals(List.of("ping"), shared.stream().map(Method::getName).toList());
    }
}
