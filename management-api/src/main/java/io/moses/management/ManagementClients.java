package io.moses.management;

/** What a JVM that calls the SOAP management services (command line, tests) sets up once. */
public final class ManagementClients {
    private ManagementClients() {}

    /**
     * CXF reads SOAP faults with the JDK's XPath lookup; ODE's Saxon 9.1 jar on the broker's
     * class path registers an XPath factory in a services file that Java 17 refuses, which breaks
     * that lookup. Naming the JDK's own factory skips the broken file.
     */
    public static void useJdkXPath() {
        System.setProperty("javax.xml.xpath.XPathFactory:http://java.sun.com/jaxp/xpath/dom",
                "com.sun.org.apache.xpath.internal.jaxp.XPathFactoryImpl");
    }
}
