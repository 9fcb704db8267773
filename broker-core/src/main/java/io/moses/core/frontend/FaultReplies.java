package io.moses.core.frontend;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A SOAP fault written straight to the HTTP response by a filter, before CXF reads the request:
 * SOAP 1.2 when the request is, else 1.1. {@code reason} is plain text (escaped here).
 */
final class FaultReplies {
    private static final String SOAP12 = "application/soap+xml";

    private FaultReplies() {}

    static void send(HttpServletRequest req, HttpServletResponse res, int status, String retryAfterSeconds, boolean client,
                     String reason) throws IOException {
        reason = reason.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        String type = req.getContentType();
        boolean soap12 = type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith(SOAP12);
        byte[] body = (soap12 ? soap12Fault(reason, client) : soap11Fault(reason, client)).getBytes(StandardCharsets.UTF_8);
        res.setStatus(status);
        res.setHeader("Retry-After", retryAfterSeconds);
        res.setContentType((soap12 ? SOAP12 : "text/xml") + "; charset=utf-8");
        res.setContentLength(body.length);
        res.getOutputStream().write(body);
    }

    private static String soap11Fault(String reason, boolean client) {
        return "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault>"
                + "<faultcode>soap:" + (client ? "Client" : "Server") + "</faultcode><faultstring>" + reason + "</faultstring>"
                + "</soap:Fault></soap:Body></soap:Envelope>";
    }

    private static String soap12Fault(String reason, boolean client) {
        return "<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><soap:Fault>"
                + "<soap:Code><soap:Value>soap:" + (client ? "Sender" : "Receiver") + "</soap:Value></soap:Code>"
                + "<soap:Reason><soap:Text xml:lang=\"en\">" + reason + "</soap:Text></soap:Reason>"
                + "</soap:Fault></soap:Body></soap:Envelope>";
    }
}
