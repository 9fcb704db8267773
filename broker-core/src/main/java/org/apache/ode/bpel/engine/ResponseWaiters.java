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
}
