package io.moses.sla.soap;

import io.moses.model.User;
import io.moses.sla.ManagementAuthenticator;
import io.moses.sla.SlaException;

import jakarta.xml.ws.WebServiceContext;
import jakarta.xml.ws.handler.MessageContext;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/** Reading the HTTP side of a SOAP call, and answering a refused one with the WSDL's fault. */
final class SoapCalls {
    private SoapCalls() {}

    /**
     * Runs an operation, turning its refusal into the endpoint's generated fault: {@code fault}
     * builds it from the one-line reason ("CODE: message") and the refusal.
     */
    static <T, F extends Exception> T refusingWith(BiFunction<String, SlaException, F> fault, Supplier<T> operation) throws F {
        try {
            return operation.get();
        } catch (SlaException e) {
            throw fault.apply(e.code() + ": " + e.getMessage(), e);
        }
    }

    /** The authenticated caller of this SOAP call, who must be an operator. */
    static User operator(ManagementAuthenticator authenticator, WebServiceContext context) {
        return authenticator.operator(authorization(context));
    }

    /** The authenticated caller of this SOAP call. */
    static User caller(ManagementAuthenticator authenticator, WebServiceContext context) {
        return authenticator.required(authorization(context));
    }

    @SuppressWarnings("unchecked")
    private static String authorization(WebServiceContext context) {
        if (context == null) return null;
        MessageContext mc = context.getMessageContext();
        Map<String, List<String>> headers = (Map<String, List<String>>) mc.get(MessageContext.HTTP_REQUEST_HEADERS);
        if (headers == null) return null;
        for (var e : headers.entrySet())
            if (e.getKey() != null && e.getKey().equalsIgnoreCase("Authorization") && !e.getValue().isEmpty()) return e.getValue().get(0);
        return null;
    }
}
