package io.moses.ode;

import org.apache.ode.bpel.dao.ProcessInstanceDAO;

/**
 * Told of each durable instance an engine transaction runs, before the transaction writes it:
 * the broker checks, in the same transaction, that the instance is still this replica's (a
 * survivor may have taken it over while this replica was presumed dead).
 */
@FunctionalInterface
public interface InstanceFence {
    InstanceFence NONE = instance -> {};

    /** The transaction on this thread runs {@code instance}; throw to refuse it. */
    void runs(ProcessInstanceDAO instance);
}
