/** What makes the replicas of a cluster one broker on the request path: conversations routed to the replica that holds their instance. */
package io.moses.core.cluster;
