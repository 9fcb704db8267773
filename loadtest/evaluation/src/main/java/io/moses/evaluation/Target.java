package io.moses.evaluation;

import java.util.List;

/**
 * What the load is sent to: a broker with one binding, or one stub called directly (the
 * direct-call limit).
 *
 * @param name       the line's name in the report: static, adaptive, direct
 * @param url        the SOAP endpoint
 * @param soapAction sent as the SOAPAction header
 * @param bodies     request bodies, {@code @USER@} standing for the user's name
 * @param users      the users the requests are sent as, in turn
 * @param pid        the process whose CPU time is counted per request (broker, or the stubs)
 * @param scale      stub calls per composite request: 1 for a broker; for the direct target its
 *                   measured throughput is divided by it, and open-model rates multiplied
 */
public record Target(String name, String url, String soapAction, List<String> bodies, List<User> users, long pid, double scale) {
    /** One of the seed's users, with the whole Authorization header value. */
    public record User(String name, String authorization) {}
}
