/**
 * What makes the replicas of a cluster one broker: the optimizer lease (one leader solves plans,
 * on the merged monitoring windows of all; {@link io.moses.core.cluster.OptimizerLease}), the
 * plan requests the other replicas send their leader ({@link io.moses.core.cluster.LeaderRequests}:
 * the SLA and Service Managers plan through it), the replicas' presence that divides each user's
 * agreed rate ({@link io.moses.core.cluster.ReplicaPresence}), conversations routed to the replica
 * that holds their instance ({@link io.moses.core.cluster.ConversationRouter}), and the replica's
 * name, lease and drain settings ({@link io.moses.core.cluster.ClusterSettings}). The replicas
 * meet only in the knowledge base and over their HTTP front-ends. These five are its API for the
 * other packages (the wiring in {@code io.moses.core}, the front end's metrics, operations, health);
 * the rest is package-private.
 */
package io.moses.core.cluster;
