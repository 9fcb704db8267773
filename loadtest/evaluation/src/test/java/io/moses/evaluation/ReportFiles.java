package io.moses.evaluation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** For the tests of the bench: where its child processes' classes are, its report's CSV files, removing a report. */
final class ReportFiles {
    private ReportFiles() {}

    /** This checkout's root, the test class path for brokers and stubs, and the Grinder module's class path. */
    static Bench.Setup setup() throws IOException {
        Path home = Path.of(System.getProperty("user.dir")).resolve("../..").toAbsolutePath().normalize();
        String testClasspath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path grinder = home.resolve("loadtest/grinder/target");
        String grinderClasspath = grinder.resolve("classes") + ":" + Files.readString(grinder.resolve("classpath.txt")).trim();
        return new Bench.Setup(home, testClasspath, testClasspath, grinderClasspath);
    }

    /** The rows of a CSV file with a header line, each as column name to value. */
    static List<Map<String, String>> csv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        String[] header = lines.get(0).split(",", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) row.put(header[i], f[i]);
            rows.add(row);
        }
        return rows;
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
