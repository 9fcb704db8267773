package io.moses.core.engine;

import java.net.URL;
import java.util.Set;
import javax.xml.namespace.QName;

/**
 * A service a deployed composite offers to users: served by the front-end at
 * {@code /services/<local name of service>}.
 *
 * @param composite  the composite service (process local name)
 * @param service    the WSDL service
 * @param port       the WSDL port
 * @param wsdl       the WSDL document that defines it
 * @param operations its operation names
 * @param soap12     whether its WSDL binding is SOAP 1.2
 */
public record ProvidedService(String composite, QName service, String port, URL wsdl, Set<String> operations, boolean soap12) {
    public String path() {
        return "/" + service.getLocalPart();
    }
}
