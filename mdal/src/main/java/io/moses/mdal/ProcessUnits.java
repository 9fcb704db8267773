package io.moses.mdal;

import java.util.List;
import java.util.Optional;

/**
 * The cluster's deployment units in the knowledge base: every replica applies what is
 * stored here, and records which version it applied. Versions come from one sequence over all
 * units, so {@link #version()} is one cheap number to poll; an undeployed unit stays as a
 * tombstone. Errors as in {@link KnowledgeBase}.
 */
public interface ProcessUnits {

    /** The highest version of any unit (tombstones included), 0 if none: grows with every change. */
    long version();

    /** Every unit, tombstones included, by name. */
    List<ProcessUnit> units();

    Optional<ProcessUnit> unit(String name);

    /** The bundle (a zip) of unit {@code name} if it is still at {@code version} and deployed. */
    Optional<byte[]> bundle(String name, long version);

    /**
     * Stores a new version of unit {@code name}: its bundle, or null to undeploy it (a tombstone).
     * Returns the unit as stored, with its new version.
     */
    ProcessUnit store(String name, byte[] bundle, String changedBy);

    /** Records that {@code replica} applied {@code version} of {@code unit}, or failed with {@code error}. */
    void recordApplied(String replica, String unit, long version, String error);

    /** Every replica's state of every unit, by unit then replica. */
    List<ProcessUnitState> states();

    /** Removes {@code replica}'s states (a replica that stops). */
    void forgetReplica(String replica);
}
