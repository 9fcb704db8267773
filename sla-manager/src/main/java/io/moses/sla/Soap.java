package io.moses.sla;

import jakarta.xml.ws.WebServiceContext;
import jakarta.xml.ws.handler.MessageContext;
import java.util.List;
import java.util.Map;

/** Reading the HTTP side of a SOAP call. */
final class Soap {
    private Soap() {}

    @SuppressWarnings("unchecked")
    static String authorization(WebServiceContext context) {
        if (context == null) return null;
        MessageContext mc = context.getMessageContext();
        Map<String, List<String>> headers = (Map<String, List<String>>) mc.get(MessageContext.HTTP_REQUEST_HEADERS);
        if (headers == null) return null;
        for (var e : headers.entrySet())
            if (e.getKey() != null && e.getKey().equalsIgnoreCase("Authorization") && !e.getValue().isEmpty()) return e.getValue().get(0);
        return null;
    }
}
