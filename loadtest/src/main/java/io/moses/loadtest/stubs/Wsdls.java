package io.moses.loadtest.stubs;

/**
 * The minimal WSDL 1.1 a stub serves at {@code ?wsdl}: its request and reply elements (typed
 * anyType), one operation, a SOAP 1.1 binding and its own address. Enough for a monitor's probe
 * and for a human; the task's real interface is in the process's WSDL.
 */
final class Wsdls {
    private Wsdls() {}

    static String of(StubSpec s, String address) {
        String tns = Soap.escape(s.namespace());
        String rns = Soap.escape(s.replyNamespace());
        boolean rpc = "rpc".equals(s.style());
        StringBuilder b = new StringBuilder(2048);
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
         .append("<definitions xmlns=\"http://schemas.xmlsoap.org/wsdl/\" xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\"")
         .append(" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:tns=\"").append(tns).append("\" xmlns:r=\"").append(rns)
         .append("\" targetNamespace=\"").append(tns).append("\" name=\"").append(s.name()).append("\">\n");
        if (!rpc) {
            b.append("  <types>\n    <xsd:schema targetNamespace=\"").append(tns).append("\" elementFormDefault=\"qualified\">\n")
             .append("      <xsd:element name=\"").append(s.requestElement()).append("\"/>\n");
            if (s.replyNamespace().equals(s.namespace()))
                b.append("      <xsd:element name=\"").append(s.replyElement()).append("\"/>\n");
            b.append("    </xsd:schema>\n");
            if (!s.replyNamespace().equals(s.namespace()))
                b.append("    <xsd:schema targetNamespace=\"").append(rns).append("\" elementFormDefault=\"qualified\">\n")
                 .append("      <xsd:element name=\"").append(s.replyElement()).append("\"/>\n    </xsd:schema>\n");
            b.append("  </types>\n");
            b.append("  <message name=\"").append(s.operation()).append("Request\"><part name=\"parameters\" element=\"tns:")
             .append(s.requestElement()).append("\"/></message>\n");
            b.append("  <message name=\"").append(s.operation()).append("Response\"><part name=\"parameters\" element=\"r:")
             .append(s.replyElement()).append("\"/></message>\n");
        } else {
            // rpc/literal: the parts are the task's business; a probe needs only the operation
            b.append("  <message name=\"").append(s.operation()).append("Request\"/>\n");
            b.append("  <message name=\"").append(s.operation()).append("Response\"/>\n");
        }
        b.append("  <portType name=\"").append(s.name()).append("PortType\">\n    <operation name=\"").append(s.operation())
         .append("\"><input message=\"tns:").append(s.operation()).append("Request\"/><output message=\"tns:")
         .append(s.operation()).append("Response\"/></operation>\n  </portType>\n");
        String body = rpc ? "<soap:body use=\"literal\" namespace=\"" + tns + "\"/>" : "<soap:body use=\"literal\"/>";
        b.append("  <binding name=\"").append(s.name()).append("Binding\" type=\"tns:").append(s.name()).append("PortType\">\n")
         .append("    <soap:binding style=\"").append(s.style()).append("\" transport=\"http://schemas.xmlsoap.org/soap/http\"/>\n")
         .append("    <operation name=\"").append(s.operation()).append("\"><soap:operation soapAction=\"").append(tns).append('/')
         .append(s.operation()).append("\"/><input>").append(body).append("</input><output>").append(body)
         .append("</output></operation>\n  </binding>\n");
        b.append("  <service name=\"").append(s.name()).append("Service\"><port name=\"").append(s.name())
         .append("Port\" binding=\"tns:").append(s.name()).append("Binding\"><soap:address location=\"")
         .append(Soap.escape(address)).append("\"/></port></service>\n</definitions>\n");
        return b.toString();
    }
}
