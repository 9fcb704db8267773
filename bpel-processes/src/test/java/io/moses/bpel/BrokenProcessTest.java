package io.moses.bpel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks above would catch a broken process: each breakage is written to a temp copy. */
class BrokenProcessTest {
    @TempDir Path tmp;

    private Path copyOfTripPlanner() throws IOException {
        Path src = Units.moduleDir().resolve("trip-planner");
        Path dir = Files.createDirectories(tmp.resolve("trip-planner"));
        try (var files = Files.list(src)) {
            for (Path f : files.toList()) if (Files.isRegularFile(f)) Files.copy(f, dir.resolve(f.getFileName()));
        }
        return dir;
    }

    private static void replace(Path file, String from, String to) throws IOException {
        String text = Files.readString(file);
        assertTrue(text.contains(from), file + " does not contain " + from);
        Files.writeString(file, text.replace(from, to));
    }

    private static String compileErrors(Path unit) {
        ProcessCompiler.Outcome o = ProcessCompiler.compile(unit);
        assertFalse(o.ok(), "a broken process compiled");
        return String.join("\n", o.errors());
    }

    @Test
    void theUntouchedCopyCompiles() throws IOException {
        Path unit = copyOfTripPlanner();
        ProcessCompiler.Outcome o = ProcessCompiler.compile(unit);
        assertTrue(o.ok(), o.errors().toString());
    }

    @Test
    void undeclaredVariableFails() throws IOException {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("TripPlanner.bpel"), "inputVariable=\"paymentIn\"", "inputVariable=\"paymentInput\"");
        assertTrue(compileErrors(unit).contains("paymentInput"));
    }

    @Test
    void operationMissingFromThePortTypeFails() throws IOException {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("TripPlanner.bpel"), "operation=\"getForecast\"", "operation=\"getWeather\"");
        assertTrue(compileErrors(unit).contains("getWeather"));
    }

    @Test
    void malformedXmlFails() throws IOException {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("TripPlanner.bpel"), "</flow>", "</flow_>");
        String errors = compileErrors(unit);
        // refused by the broker's parser before ODE's compiler reads it, with the place of the error
        assertTrue(errors.contains("TripPlanner.bpel: not well-formed XML at line ") && errors.contains("flow"), errors);
    }

    @Test
    void invalidXPathFails() throws IOException {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("TripPlanner.bpel"), "substring($attractions, 3)", "substring($attractions, 3");
        String errors = compileErrors(unit);
        // the XPath compiler's reason, quoting the broken expression
        assertTrue(errors.contains("substring($attractions, 3"), errors);
    }

    @Test
    void deploymentDescriptorWithoutAnInvokeIsReported() throws Exception {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("deploy.xml"), "<invoke partnerLink=\"car\">", "<invoke partnerLink=\"cars\">");
        List<String> problems = UnitCheck.problems(unit);
        assertTrue(problems.stream().anyMatch(p -> p.contains("partner link car ")), problems.toString());
    }

    @Test
    void deploymentDescriptorNamingAMissingPortIsReported() throws Exception {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("deploy.xml"), "port=\"HotelPort\"", "port=\"HotelPort2\"");
        List<String> problems = UnitCheck.problems(unit);
        assertTrue(problems.stream().anyMatch(p -> p.contains("HotelPort2")), problems.toString());
    }

    @Test
    void deploymentDescriptorInvalidAgainstOdesSchemaIsReported() throws Exception {
        Path unit = copyOfTripPlanner();
        replace(unit.resolve("deploy.xml"), "<in-memory>true</in-memory>", "<in-memory>yes please</in-memory>");
        List<String> problems = UnitCheck.problems(unit);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("deploy.xml:")), problems.toString());
    }
}
