package io.moses.evaluation;

import java.util.List;

/**
 * What the load is sent to: a broker with one binding, or one stub called directly (the
 * direct-call limit).
 *
 * @param name       the line's name in the report: static, adaptive, direct; binding@N for N
 *                   replicas behind HAProxy (static@1, adaptive@2)
 * @param url        the SOAP endpoint
 * @param soapAction sent as the SOAPAction header
 * @param bodies     request bodies, {@code @USER@} standing for the user's name
 * @param users      the users the requests are sent as, in turn
 * @param pids       the processes whose CPU time is counted per request (the broker; a cluster's
 *                   replicas, HAProxy and MariaDB; or the stubs)
 * @param scale      stub calls per composite request: 1 for a broker; for the direct target its
 *                   measured throughput is divided by it, and open-model rates multiplied
 */
public record Target(String name, String url, String soapAction, List<String> bodies, List<User> users, List<Long> pids, double scale) {
    /** One of the seed's users, with the whole Authorization header value. */
    public record User(String name, String authorization) {}

    /** The binding part of a target name (static@2 -> static). */
    static String binding(String target) {
        int at = target.indexOf('@');
        return at < 0 ? target : target.substring(0, at);
    }

    /** Replicas behind HAProxy from a target name (static@2 -> 2); 0 for a lone broker or the direct target. */
    static int replicas(String target) {
        int at = target.indexOf('@');
        return at < 0 ? 0 : Integer.parseInt(target.substring(at + 1));
    }
}
