package io.moses.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A copy of a test unit whose processes run in memory: the units of the conformance and
 * conversation tests say nothing, so they are durable (ODE's rule), and each runs once more from
 * such a copy, so that BPEL passes in both modes.
 */
final class InMemoryUnits {
    private InMemoryUnits() {}

    /** Copies {@code unit} into {@code dir}/{@code unit's name}, each process of its deploy.xml given {@code <in-memory>true</in-memory>}. */
    static Path copy(Path unit, Path dir) throws IOException {
        Path copy = dir.resolve(unit.getFileName());
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(unit)) {
            for (Path f : (Iterable<Path>) files::iterator) Files.copy(f, copy.resolve(f.getFileName()));
        }
        Path descriptor = copy.resolve("deploy.xml");
        String xml = Files.readString(descriptor);
        if (xml.contains("<in-memory>")) throw new IllegalArgumentException(unit + " already says how its processes run");
        String inMemory = xml.replaceAll("(<process\\s[^>]*>)", "$1<in-memory>true</in-memory>");
        if (inMemory.equals(xml)) throw new IllegalArgumentException(unit + " has no process in its deploy.xml");
        Files.writeString(descriptor, inMemory);
        return copy;
    }
}
