package org.apache.ode.bpel.engine;

/**
 * Wakes the thread waiting for the reply of a request whose process instance failed: ODE
 * completes a request's future only when the process replies, and an in-memory job that fails
 * is not retried, so without this the caller would wait for its timeout.
 *
 * <p>In ODE's package because the waiting callbacks are package-private.
 */
public final class ResponseWaiters {
    private ResponseWaiters() {}

    /**
     * Ends the wait of the request started with {@code clientId}, if one is waiting or about to
     * wait; its future then returns without a response.
     *
     * @return true if a waiter was woken
     */
    public static boolean wake(String clientId) {
        MyRoleMessageExchangeImpl.ResponseCallback callback = MyRoleMessageExchangeImpl._waitingCallbacks.remove(clientId);
        return callback != null && callback.responseReceived();
    }

    /** Forgets the callback of a request that timed out (ODE keeps it otherwise). */
    public static void forget(String clientId) {
        MyRoleMessageExchangeImpl._waitingCallbacks.remove(clientId);
    }

    /**
     * Swaps ODE's callback for the request started with {@code clientId} (between
     * {@code mex.invoke} and the commit that lets the instance run) for one whose waiter parks
     * on a latch. ODE's own callback waits with {@code Object.wait}, which inflates a monitor
     * per request: the JVM's monitor deflation thread then took a visible share of the CPU.
     *
     * @return the parked wait, or null when ODE registered no callback (one-way operation)
     */
    public static ParkedWait park(String clientId) {
        MyRoleMessageExchangeImpl.ResponseCallback odes = MyRoleMessageExchangeImpl._waitingCallbacks.get(clientId);
        if (odes == null) return null;
        ParkedWait wait = new ParkedWait();
        return MyRoleMessageExchangeImpl._waitingCallbacks.replace(clientId, odes, wait) ? wait : null;
    }

    /**
     * A request's wait for its reply, parked on a latch: it ends when the process replied, or its
     * instance failed ({@link #wake}). Carries no reply: the caller reads it from the exchange.
     */
    public static final class ParkedWait extends MyRoleMessageExchangeImpl.ResponseCallback {
        private final java.util.concurrent.CountDownLatch received = new java.util.concurrent.CountDownLatch(1);
        private volatile boolean abandoned;

        ParkedWait() {}

        @Override
        boolean responseReceived() {
            if (abandoned) return false;
            received.countDown();
            return true;
        }

        /** Only if someone waits through ODE's future: the same latch. */
        @Override
        void waitResponse(long millis) {
            try {
                await(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** @return true when the reply came (or the instance failed) within {@code millis}; false after the timeout */
        public boolean await(long millis) throws InterruptedException {
            if (received.await(millis <= 0 ? Long.MAX_VALUE : millis, java.util.concurrent.TimeUnit.MILLISECONDS)) return true;
            abandoned = true;
            return received.getCount() == 0;
        }
    }
}
