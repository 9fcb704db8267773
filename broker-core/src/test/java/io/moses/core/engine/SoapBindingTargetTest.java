package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.moses.model.TaskRef;
import java.net.URI;
import java.nio.file.Path;
import javax.wsdl.Definition;
import javax.wsdl.factory.WSDLFactory;
import javax.wsdl.xml.WSDLReader;
import javax.xml.namespace.QName;
import org.junit.jupiter.api.Test;

/** Where an invoke goes: the port's own address parsed once, any other address as it comes; which task it is. */
class SoapBindingTargetTest {
    private static SoapBinding leftPort() throws Exception {
        WSDLReader reader = WSDLFactory.newInstance().newWSDLReader();
        reader.setFeature("javax.wsdl.verbose", false);
        Definition def = reader.readWSDL(Path.of("src/test/resources/processes/echo-pair/Partner.wsdl").toUri().toString());
        return SoapBinding.of(def, new QName("urn:moses:test:partner", "PartnerService"), "LeftPort");
    }

    @Test
    void thePortsOwnAddressIsTheOneParsedAtDeploymentAnyOtherIsParsedAsItComes() throws Exception {
        SoapBinding port = leftPort();
        URI own = port.targetOf("http://127.0.0.1:19091/left");
        assertEquals(URI.create("http://127.0.0.1:19091/left"), own);
        assertSame(own, port.targetOf("http://127.0.0.1:19091/left"), "parsed again for a second invoke");
        assertEquals(URI.create("http://10.0.0.7:9090/assigned"), port.targetOf("http://10.0.0.7:9090/assigned"));
        assertNull(port.targetOf(null));
        assertNull(port.targetOf("  "));
        assertThrows(IllegalArgumentException.class, () -> port.targetOf("http://bad host/"), "a bad address fails the invoke, as before");
    }

    @Test
    void aChannelGivesEveryInvokeOfAnOperationTheSameTaskAndAnotherPartnerLinkItsOwn() throws Exception {
        Endpoints.Channel channel = new Endpoints.Channel(leftPort(), "Trip", () -> null);
        TaskRef first = channel.task("flight", "findFlight");
        assertEquals(new TaskRef("Trip", "flight.findFlight"), first);
        assertSame(first, channel.task("flight", new String("findFlight")), "made again for a second invoke");
        assertEquals(new TaskRef("Trip", "flight.rebook"), channel.task("flight", "rebook"));
        // the same operation through another partner link, were ODE to share a channel, or another process's channel
        assertEquals(new TaskRef("Trip", "charter.findFlight"), channel.task("charter", "findFlight"));
        assertEquals(new TaskRef("Other", "flight.findFlight"), new Endpoints.Channel(leftPort(), "Other", () -> null).task("flight", "findFlight"));
        assertSame(first, channel.task("flight", "findFlight"));
    }
}
