package io.moses.loadtest.stubs;

import java.util.ArrayList;
import java.util.List;

/**
 * The minimal WSDL 1.1 a stub serves at {@code ?wsdl}: its request and reply elements (typed
 * anyType), its operations (one, or a reservation service's reserve and confirm, or an
 * asynchronous service's one-way requestQuote, whose callback is not an operation of its own), a
 * SOAP 1.1 binding and its own address. Enough for a monitor's probe and for a human; the task's real
 * interface is in the process's WSDL.
 */
final class Wsdls {
    private Wsdls() {}

    /** One operation: its name and its request and reply elements' local names; no reply: one-way. */
    private record Operation(String name, String request, String reply) {}

    static String of(StubSpec s, String address) {
        List<Operation> operations = new ArrayList<>(List.of(new Operation(s.operation(), s.requestElement(),
                s.async() == null ? s.replyElement() : null)));
        if (s.reservations() != null)
            operations.add(new Operation("confirm", StubSpec.Reservations.CONFIRM_REQUEST, StubSpec.Reservations.CONFIRM_RESPONSE));
        String tns = Soap.escape(s.namespace());
        String rns = Soap.escape(s.replyNamespace());
        boolean rpc = "rpc".equals(s.style());
        StringBuilder b = new StringBuilder(2048);
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
         .append("<definitions xmlns=\"http://schemas.xmlsoap.org/wsdl/\" xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\"")
         .append(" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:tns=\"").append(tns).append("\" xmlns:r=\"").append(rns)
         .append("\" targetNamespace=\"").append(tns).append("\" name=\"").append(s.name()).append("\">\n");
        if (!rpc) {
            b.append("  <types>\n    <xsd:schema targetNamespace=\"").append(tns).append("\" elementFormDefault=\"qualified\">\n");
            for (Operation o : operations) {
                b.append("      <xsd:element name=\"").append(o.request()).append("\"/>\n");
                if (o.reply() != null && s.replyNamespace().equals(s.namespace()))
                    b.append("      <xsd:element name=\"").append(o.reply()).append("\"/>\n");
            }
            b.append("    </xsd:schema>\n");
            if (!s.replyNamespace().equals(s.namespace())) {
                b.append("    <xsd:schema targetNamespace=\"").append(rns).append("\" elementFormDefault=\"qualified\">\n");
                for (Operation o : operations)
                    if (o.reply() != null) b.append("      <xsd:element name=\"").append(o.reply()).append("\"/>\n");
                b.append("    </xsd:schema>\n");
            }
            b.append("  </types>\n");
            for (Operation o : operations) {
                b.append("  <message name=\"").append(o.name()).append("Request\"><part name=\"parameters\" element=\"tns:")
                 .append(o.request()).append("\"/></message>\n");
                if (o.reply() != null)
                    b.append("  <message name=\"").append(o.name()).append("Response\"><part name=\"parameters\" element=\"r:")
                     .append(o.reply()).append("\"/></message>\n");
            }
        } else {
            // rpc/literal: the parts are the task's business; a probe needs only the operation
            for (Operation o : operations) {
                b.append("  <message name=\"").append(o.name()).append("Request\"/>\n");
                if (o.reply() != null) b.append("  <message name=\"").append(o.name()).append("Response\"/>\n");
            }
        }
        b.append("  <portType name=\"").append(s.name()).append("PortType\">\n");
        for (Operation o : operations)
            b.append("    <operation name=\"").append(o.name()).append("\"><input message=\"tns:").append(o.name()).append("Request\"/>")
             .append(o.reply() == null ? "" : "<output message=\"tns:" + o.name() + "Response\"/>").append("</operation>\n");
        b.append("  </portType>\n");
        String body = rpc ? "<soap:body use=\"literal\" namespace=\"" + tns + "\"/>" : "<soap:body use=\"literal\"/>";
        b.append("  <binding name=\"").append(s.name()).append("Binding\" type=\"tns:").append(s.name()).append("PortType\">\n")
         .append("    <soap:binding style=\"").append(s.style()).append("\" transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n");
        for (Operation o : operations)
            b.append("    <operation name=\"").append(o.name()).append("\"><soap:operation soapAction=\"").append(tns).append('/')
             .append(o.name()).append("\"/><input>").append(body).append("</input>")
             .append(o.reply() == null ? "" : "<output>" + body + "</output>").append("</operation>\n");
        b.append("  </binding>\n");
        b.append("  <service name=\"").append(s.name()).append("Service\"><port name=\"").append(s.name())
         .append("Port\" binding=\"tns:").append(s.name()).append("Binding\"><soap:address location=\"")
         .append(Soap.escape(address)).append("\"/></port></service>\n</definitions>\n");
        return b.toString();
    }
}
