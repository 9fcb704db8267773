package io.moses.loadtest.stubs;

import java.io.ByteArrayInputStream;
import java.util.HashMap;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** Just enough SOAP 1.1/1.2 for a stub: find the request element, answer with a body or a fault. */
final class Soap {
    static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
    /** WS-Addressing 1.0, and the 2004 submission some toolkits still send. */
    static final String WSA = "http://www.w3.org/2005/08/addressing";
    static final String WSA_2004 = "http://schemas.xmlsoap.org/ws/2004/08/addressing";

    /** A request that cannot be served: the reason goes into a SOAP fault. */
    static final class BadRequest extends Exception {
        BadRequest(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * The first element of the SOAP Body and the text of its direct child elements.
     *
     * @param children  "{namespace}local" -> text, first occurrence only
     * @param addresses "{namespace}local" of a child -> the text of the first WS-Addressing
     *                  Address element inside it, at any depth: an endpoint reference the child
     *                  holds (a wsa:EndpointReference, or a BPEL service-ref wrapping one)
     */
    record Request(String soapNs, String namespace, String local, Map<String, String> children, Map<String, String> addresses) {
        String name() {
            return "{" + namespace + "}" + local;
        }
    }

    private static final XMLInputFactory FACTORY = XMLInputFactory.newFactory();
    static {
        // No DTDs at all: no external entities (XXE), no entity expansion bombs.
        FACTORY.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        FACTORY.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        FACTORY.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    }

    private Soap() {}

    static Request parse(byte[] body) throws BadRequest {
        XMLStreamReader r = null;
        try {
            r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(body));
            String soapNs = null;
            int depth = 0; // 1 Envelope, 2 Header/Body, 3 request element, 4 its children
            boolean inBody = false;
            String ns = null, local = null;
            Map<String, String> children = new HashMap<>();
            Map<String, String> addresses = new HashMap<>();
            String childName = null;
            StringBuilder childText = null;
            int addressDepth = 0; // of the wsa:Address being read inside a child, else 0
            StringBuilder addressText = null;
            while (r.hasNext()) {
                int e = r.next();
                switch (e) {
                    case XMLStreamConstants.DTD -> throw new BadRequest("malformed request: DTDs are not allowed");
                    case XMLStreamConstants.START_ELEMENT -> {
                        depth++;
                        String ens = r.getNamespaceURI() == null ? "" : r.getNamespaceURI();
                        if (depth == 1) {
                            if (!"Envelope".equals(r.getLocalName()) || !(SOAP11.equals(ens) || SOAP12.equals(ens)))
                                throw new BadRequest("not a SOAP envelope: root element is {" + ens + "}" + r.getLocalName());
                            soapNs = ens;
                        } else if (depth == 2) {
                            inBody = "Body".equals(r.getLocalName()) && soapNs.equals(ens);
                        } else if (depth == 3 && inBody && local == null) {
                            ns = ens;
                            local = r.getLocalName();
                        } else if (depth == 4 && inBody && childName == null) {
                            childName = "{" + ens + "}" + r.getLocalName();
                            childText = new StringBuilder();
                        } else if (depth > 4 && childName != null && addressText == null && !addresses.containsKey(childName)
                                && "Address".equals(r.getLocalName()) && (WSA.equals(ens) || WSA_2004.equals(ens))) {
                            addressDepth = depth;
                            addressText = new StringBuilder();
                        }
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                        if (childText != null && depth == 4) childText.append(r.getText());
                        if (addressText != null && depth == addressDepth) addressText.append(r.getText());
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        if (addressText != null && depth == addressDepth) {
                            addresses.put(childName, addressText.toString().strip());
                            addressText = null;
                            addressDepth = 0;
                        }
                        if (depth == 4 && childName != null) {
                            children.putIfAbsent(childName, childText.toString());
                            childName = null;
                            childText = null;
                        }
                        if (depth == 2) inBody = false;
                        depth--;
                    }
                    case XMLStreamConstants.ENTITY_REFERENCE -> throw new BadRequest("malformed request: entity references are not allowed");
                    default -> { }
                }
            }
            if (soapNs == null) throw new BadRequest("malformed request: empty body");
            if (local == null) throw new BadRequest("the SOAP Body is empty: expected a request element");
            return new Request(soapNs, ns, local, Map.copyOf(children), Map.copyOf(addresses));
        } catch (XMLStreamException e) {
            String m = e.getMessage() == null ? e.toString() : e.getMessage().replaceAll("\\s+", " ");
            throw new BadRequest("malformed request XML: " + m);
        } finally {
            if (r != null) try { r.close(); } catch (XMLStreamException ignored) { }
        }
    }

    static String contentType(String soapNs) {
        return SOAP12.equals(soapNs) ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8";
    }

    static String envelope(String soapNs, String bodyContent) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soap:Envelope xmlns:soap=\"" + soapNs + "\"><soap:Body>"
                + bodyContent + "</soap:Body></soap:Envelope>";
    }

    /** A fault; {@code sender}: the request was wrong (Client/Sender), else the service failed (Server/Receiver). */
    static String fault(String soapNs, boolean sender, String reason) {
        String text = escape(reason);
        if (SOAP12.equals(soapNs))
            return envelope(soapNs, "<soap:Fault><soap:Code><soap:Value>soap:" + (sender ? "Sender" : "Receiver")
                    + "</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang=\"en\">" + text
                    + "</soap:Text></soap:Reason></soap:Fault>");
        return envelope(soapNs, "<soap:Fault><faultcode>soap:" + (sender ? "Client" : "Server") + "</faultcode><faultstring>"
                + text + "</faultstring></soap:Fault>");
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
