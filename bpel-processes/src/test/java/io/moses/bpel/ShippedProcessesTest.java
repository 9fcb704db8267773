package io.moses.bpel;

import static io.moses.bpel.Units.BPEL;
import static io.moses.bpel.Units.SOAP;
import static io.moses.bpel.Units.WSDL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Element;

/** Every deployment unit shipped in this module compiles with ODE 1.3.7 and keeps its contract. */
class ShippedProcessesTest {
    private static final Path SCRATCH = Units.moduleDir().resolve("target/compiled-processes");

    @Test
    void everyExampleProcessIsShipped() throws Exception {
        Set<String> names = new TreeSet<>();
        for (Path unit : Units.shipped()) names.add(unit.getFileName().toString());
        assertTrue(names.containsAll(Set.of("trip-planner", "order-check", "order-confirmation", "hotel-reservation", "quote-async")), "shipped units: " + names);
    }

    @TestFactory
    Stream<DynamicTest> everyShippedProcessCompilesWithOdesCompiler() throws Exception {
        return Units.shipped().stream().map(unit -> DynamicTest.dynamicTest(unit.getFileName().toString(), () -> {
            List<ProcessCompiler.Outcome> outcomes = ProcessCompiler.compileUnit(unit, SCRATCH);
            assertFalse(outcomes.isEmpty(), unit + " has no .bpel");
            for (ProcessCompiler.Outcome o : outcomes) {
                assertTrue(o.ok(), o.bpel().getFileName() + " does not compile: " + o.errors());
                assertTrue(Files.size(o.cbp()) > 1000, "compiled process is suspiciously small: " + o.cbp());
            }
            try (Stream<Path> sources = Files.walk(unit)) {
                assertTrue(sources.noneMatch(p -> p.toString().endsWith(".cbp")), "a .cbp was written into the source tree");
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyDeploymentDescriptorBindsEveryPartnerLink() throws Exception {
        return Units.shipped().stream().map(unit -> DynamicTest.dynamicTest(unit.getFileName().toString(),
                () -> assertEquals(List.of(), UnitCheck.problems(unit))));
    }

    @Test
    void tripPlannerHasTheSixTasksOfTheContract() throws Exception {
        Path unit = Units.moduleDir().resolve("trip-planner");
        Element process = Units.parse(unit.resolve("TripPlanner.bpel")).getDocumentElement();
        assertEquals("TripPlanner", process.getAttribute("name"));
        assertEquals("urn:moses:trip-planner", process.getAttribute("targetNamespace"));
        assertEquals(Set.of("flight.findFlight", "hotel.findHotel", "weather.getForecast", "car.rentCar",
                "attraction.bookAttraction", "payment.charge"), tasks(process));

        Element flow = Units.all(process, BPEL, "flow").get(0);
        assertEquals(3, Units.children(flow, BPEL, "invoke").size(), "the flow runs three invokes concurrently");
        Element forEach = Units.all(process, BPEL, "forEach").get(0);
        assertEquals("no", forEach.getAttribute("parallel"));
        assertEquals(1, Units.all(forEach, BPEL, "invoke").size());
        Element ifCar = Units.all(process, BPEL, "if").get(0);
        assertEquals("car", Units.all(ifCar, BPEL, "invoke").get(0).getAttribute("partnerLink"));

        Map<String, String> expected = new TreeMap<>();
        for (String p : List.of("flight", "hotel", "weather", "car", "attraction", "payment"))
            expected.put("urn:moses:task:" + p, "http://localhost:9090/stubs/" + p + "-a");
        assertEquals(expected, partnerAddresses(unit, "urn:moses:task:"));
        assertEquals(Map.of("urn:moses:trip-planner", "http://localhost:8080/services/TripPlannerService"),
                partnerAddresses(unit, "urn:moses:trip-planner"));
    }

    @Test
    void orderCheckHasTwoTasksInALoopAndABranch() throws Exception {
        Path unit = Units.moduleDir().resolve("order-check");
        Element process = Units.parse(unit.resolve("OrderCheck.bpel")).getDocumentElement();
        assertEquals("urn:moses:order-check", process.getAttribute("targetNamespace"));
        assertEquals(Set.of("inventory.reserve", "shipping.quote"), tasks(process));
        Element loop = Units.all(process, BPEL, "while").get(0);
        assertEquals("inventory", Units.all(loop, BPEL, "invoke").get(0).getAttribute("partnerLink"));
        Element branch = Units.all(process, BPEL, "if").get(0);
        assertEquals("shipping", Units.all(branch, BPEL, "invoke").get(0).getAttribute("partnerLink"));
        assertEquals(Map.of("urn:moses:task:inventory", "http://localhost:9090/stubs/inventory",
                "urn:moses:task:shipping", "http://localhost:9090/stubs/shipping"), partnerAddresses(unit, "urn:moses:task:"));
    }

    @Test
    void orderConfirmationIsADurableConversationThatExpires() throws Exception {
        Path unit = Units.moduleDir().resolve("order-confirmation");
        Element process = Units.parse(unit.resolve("OrderConfirmation.bpel")).getDocumentElement();
        assertEquals("urn:moses:order-confirmation", process.getAttribute("targetNamespace"));
        assertEquals(Set.of("inventory.reserve"), tasks(process));

        // placeOrder starts the instance and initiates the correlation set on the orderId
        Element start = Units.all(process, BPEL, "receive").get(0);
        assertEquals("placeOrder", start.getAttribute("operation"));
        assertEquals("yes", start.getAttribute("createInstance"));
        assertEquals("yes", Units.all(start, BPEL, "correlation").get(0).getAttribute("initiate"));

        // then confirm, correlated, or the order's own expiry, whichever comes first
        Element pick = Units.all(process, BPEL, "pick").get(0);
        Element confirm = Units.children(pick, BPEL, "onMessage").get(0);
        assertEquals("confirm", confirm.getAttribute("operation"));
        assertEquals("no", Units.all(confirm, BPEL, "correlation").get(0).getAttribute("initiate"));
        assertEquals(1, Units.all(confirm, BPEL, "reply").size(), "confirm is request-response");
        Element alarm = Units.children(pick, BPEL, "onAlarm").get(0);
        assertEquals("$order.body/ocf:expiresAfter", Units.children(alarm, BPEL, "for").get(0).getTextContent().trim());
        Element status = Units.all(process, BPEL, "onEvent").get(0);
        assertEquals("status", status.getAttribute("operation"));

        Element deploy = Units.parse(unit.resolve("deploy.xml")).getDocumentElement();
        assertEquals("false", Units.all(deploy, Units.DD, "in-memory").get(0).getTextContent().trim(), "meant to be durable");
        assertEquals(Map.of("urn:moses:task:inventory", "http://localhost:9090/stubs/inventory"), partnerAddresses(unit, "urn:moses:task:"));
    }

    @Test
    void hotelReservationConfirmsWhatItsReserveReturnedOnTheSamePartnerLink() throws Exception {
        Path unit = Units.moduleDir().resolve("hotel-reservation");
        Element process = Units.parse(unit.resolve("HotelReservation.bpel")).getDocumentElement();
        assertEquals("urn:moses:hotel-reservation", process.getAttribute("targetNamespace"));
        assertEquals(Set.of("room.reserve", "room.confirm"), tasks(process));
        List<Element> invokes = Units.all(process, BPEL, "invoke");
        assertEquals(List.of("reserve", "confirm"), invokes.stream().map(i -> i.getAttribute("operation")).toList(), "reserve, then confirm");
        // the confirm carries the id the reserve answered
        boolean idPassedOn = Units.all(process, BPEL, "copy").stream().anyMatch(c ->
                Units.children(c, BPEL, "from").get(0).getTextContent().trim().equals("$reserveOut.parameters/rm:reservationId")
                        && Units.children(c, BPEL, "to").get(0).getTextContent().trim().equals("$confirmIn.parameters/rm:reservationId"));
        assertTrue(idPassedOn, "the confirm's reservationId is the reserve's");

        Element deploy = Units.parse(unit.resolve("deploy.xml")).getDocumentElement();
        assertEquals("true", Units.all(deploy, Units.DD, "in-memory").get(0).getTextContent().trim());
        assertEquals(Map.of("urn:moses:task:room", "http://localhost:9090/stubs/hotel-room-a"), partnerAddresses(unit, "urn:moses:task:"));
        String seed = Files.readString(unit.resolve("seed.yaml"));
        for (String task : List.of("room.reserve", "room.confirm"))
            assertTrue(seed.contains("{task: " + task + ", stateful: true}"), task + " is declared stateful in seed.yaml");
    }

    @Test
    void quoteAsyncSendsItsOwnEndpointAndReceivesTheCorrelatedCallback() throws Exception {
        Path unit = Units.moduleDir().resolve("quote-async");
        Element process = Units.parse(unit.resolve("QuoteAsync.bpel")).getDocumentElement();
        assertEquals("urn:moses:quote-async", process.getAttribute("targetNamespace"));
        assertEquals(Set.of("supplier.requestQuote"), tasks(process));

        // one partner link with both roles: the supplier's for requestQuote, the process's own for quoteReady
        Element supplier = Units.all(process, BPEL, "partnerLink").stream()
                .filter(l -> l.getAttribute("name").equals("supplier")).findFirst().orElseThrow();
        assertEquals("supplier", supplier.getAttribute("partnerRole"));
        assertEquals("requester", supplier.getAttribute("myRole"));
        Element invoke = Units.all(process, BPEL, "invoke").get(0);
        assertEquals("", invoke.getAttribute("outputVariable"), "requestQuote is one-way");

        // replyTo is the process's own endpoint reference on that partner link
        boolean replyTo = Units.all(process, BPEL, "copy").stream().anyMatch(c -> {
            Element from = Units.children(c, BPEL, "from").get(0);
            return from.getAttribute("partnerLink").equals("supplier") && from.getAttribute("endpointReference").equals("myRole")
                    && Units.children(c, BPEL, "to").get(0).getTextContent().trim().equals("$quoteIn.parameters/sup:replyTo");
        });
        assertTrue(replyTo, "replyTo is the supplier partner link's myRole endpoint reference");

        // the callback is received on the same partner link, correlated on the quote's requestId
        List<Element> receives = Units.all(process, BPEL, "receive");
        assertEquals(List.of("quote", "quoteReady"), receives.stream().map(r -> r.getAttribute("operation")).toList());
        assertEquals("yes", Units.all(receives.get(0), BPEL, "correlation").get(0).getAttribute("initiate"));
        Element callback = receives.get(1);
        assertEquals("supplier", callback.getAttribute("partnerLink"));
        Element correlation = Units.all(callback, BPEL, "correlation").get(0);
        assertEquals("quote", correlation.getAttribute("set"));
        assertEquals("no", correlation.getAttribute("initiate"));

        Element deploy = Units.parse(unit.resolve("deploy.xml")).getDocumentElement();
        assertEquals("true", Units.all(deploy, Units.DD, "in-memory").get(0).getTextContent().trim());
        List<String> provided = Units.all(deploy, Units.DD, "provide").stream().map(p -> p.getAttribute("partnerLink")).toList();
        assertEquals(List.of("client", "supplier"), provided, "the broker serves the supplier partner link's myRole too");
        assertEquals(Map.of("urn:moses:task:supplier", "http://localhost:9090/stubs/supplier-a"), partnerAddresses(unit, "urn:moses:task:"));
        assertTrue(Files.readString(unit.resolve("seed.yaml")).contains("{task: supplier.requestQuote, callback: quoteReady,"),
                "supplier.requestQuote is declared asynchronous in seed.yaml, called back by quoteReady");
    }

    /** partnerLink.operation of every invoke. */
    private static Set<String> tasks(Element process) {
        Set<String> tasks = new TreeSet<>();
        for (Element invoke : Units.all(process, BPEL, "invoke"))
            tasks.add(invoke.getAttribute("partnerLink") + "." + invoke.getAttribute("operation"));
        return tasks;
    }

    /** WSDL target namespace -> its only soap:address, for WSDLs whose namespace starts with {@code prefix}. */
    private static Map<String, String> partnerAddresses(Path unit, String prefix) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (Path wsdl : ProcessCompiler.list(unit, ".wsdl")) {
            Element defs = Units.parse(wsdl).getDocumentElement();
            String tns = defs.getAttribute("targetNamespace");
            if (!tns.startsWith(prefix)) continue;
            for (Element service : Units.children(defs, WSDL, "service"))
                for (Element address : Units.all(service, SOAP, "address"))
                    assertEquals(null, out.put(tns, address.getAttribute("location")), "one address per WSDL: " + wsdl);
        }
        return out;
    }
}
