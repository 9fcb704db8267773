package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tools the project's scripts and tests call are the ones {@code .ci/run}'s TOOLS lists, so
 * that it installs each of them on a new machine. A machine that has a tool from an
 * earlier manual install passes the tests that need it; this test fails there all the same.
 */
class CiToolsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** What a new machine has, or what no test needs: not looked for in .ci/run's list. */
    static final Set<String> BASE = Set.of("bash", "java",
            // the Docker client is optional: docker compose config runs only where it is installed
            "docker");

    /** In shell: {@code command -v X}, {@code mariadb_bin X Y} (alternatives). */
    static final Pattern SHELL = Pattern.compile("command -v ([\\w.+-]+)|mariadb_bin ((?:[\\w.+-]+ ?)+)");
    /** In Java: an absolute path to a binary or a library, {@code onPath("X")}, {@code binary("X", "Y")}, "needs X", a tool list. */
    static final Pattern JAVA = Pattern.compile("\"(/usr/(?:s?bin|lib)/[^\"]+)\"|onPath\\(\"([\\w.+-]+)\"\\)"
            + "|binary\\(((?:\"[\\w.+-]+\"(?:, )?)+)\\)|\"needs ([\\w.+-]+)|String tool : List\\.of\\(([^)]*)\\)"
            + "|ProcessBuilder\\(\"([\\w.+-]+)\"");

    record Listed(String pkg, List<String> uses) {}

    static List<Listed> listed() throws IOException {
        List<Listed> out = new ArrayList<>();
        String run = Files.readString(ROOT.resolve(".ci/run"));
        Matcher list = Pattern.compile("(?s)\nTOOLS='\n(.*?)\n'\n").matcher(run);
        assertTrue(list.find(), ".ci/run has its TOOLS list");
        for (String line : list.group(1).split("\n")) {
            String l = line.replaceAll("#.*", "").strip();
            if (l.isEmpty()) continue;
            String[] w = l.split("\\s+");
            out.add(new Listed(w[0], List.of(w).subList(1, w.length)));
        }
        return out;
    }

    /** A use (a command or an absolute path) is covered by a listed command, path (glob) or a listed path's file name. */
    static boolean covered(String use, List<Listed> listed) {
        if (BASE.contains(use)) return true;
        String name = Path.of(use).getFileName().toString();
        for (Listed l : listed)
            for (String u : l.uses()) {
                if (u.equals(use) || Path.of(u).getFileName().toString().equals(name)) return true;
                if (use.startsWith("/") && u.startsWith("/") && FileSystems.getDefault().getPathMatcher("glob:" + u).matches(Path.of(use)))
                    return true;
            }
        return false;
    }

    /** Each file's tool uses, each a group of alternatives (one of them suffices). */
    static Map<String, List<List<String>>> uses() throws IOException {
        Map<String, List<List<String>>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String rel = ROOT.relativize(f).toString();
                if (rel.startsWith(".git/") || rel.contains("/target/") || rel.startsWith("work/") || rel.contains("/node_modules/")) continue;
                boolean shell = rel.endsWith(".sh") || rel.equals("moses") || rel.equals(".ci/run");
                boolean java = rel.endsWith(".java") && !rel.endsWith("CiToolsTest.java");
                if (!shell && !java) continue;
                Matcher m = (shell ? SHELL : JAVA).matcher(read(f));
                while (m.find()) {
                    for (int g = 1; g <= m.groupCount(); g++) {
                        String s = m.group(g);
                        if (s == null) continue;
                        List<String> alternatives = List.of(s.replace("\"", "").split("[,\\s]+"));
                        out.computeIfAbsent(rel, k -> new ArrayList<>()).add(alternatives);
                    }
                }
            }
        }
        return out;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyToolAScriptOrATestCallsIsInstalledByCi() throws IOException {
        List<Listed> listed = listed();
        Map<String, List<List<String>>> uses = uses();
        // the scan finds what it is meant to: if a pattern stopped matching, this test would pass on nothing
        Set<String> seen = new LinkedHashSet<>();
        uses.values().forEach(l -> l.forEach(seen::addAll));
        for (String expected : List.of("wrk", "httperf", "/usr/sbin/haproxy", "/usr/bin/chromium", "mariadbd", "rsync"))
            assertTrue(seen.contains(expected), "the scan no longer finds " + expected + " (found " + seen + ")");
        Set<String> missing = new LinkedHashSet<>();
        uses.forEach((file, groups) -> {
            for (List<String> alternatives : groups)
                if (alternatives.stream().noneMatch(u -> covered(u, listed)))
                    missing.add(String.join(" or ", alternatives) + " (" + file + ")");
        });
        assertEquals(Set.of(), missing, "used but not in .ci/run's TOOLS, so it would not install it on a new machine");
    }

    @Test
    void ciRunInstallsFromTheListBeforeTheTestsAndItsCheckAgrees() throws Exception {
        String run = Files.readString(ROOT.resolve(".ci/run"));
        assertTrue(run.indexOf("apt-get install") < run.lastIndexOf("./moses test"), "tools are installed before the tests run");
        for (Listed l : listed()) assertTrue(!l.uses().isEmpty(), l.pkg() + " lists nothing to check");
        Process p = new ProcessBuilder("bash", ROOT.resolve(".ci/run").toString(), "--check").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        int rc = p.waitFor();
        // on a machine with every tool it says so; elsewhere it names the packages, and only them
        if (rc == 0) assertEquals("every tool the tests need is installed", out);
        else {
            assertEquals(1, rc, out);
            assertTrue(out.startsWith("missing: "), out);
            Set<String> packages = new LinkedHashSet<>();
            listed().forEach(l -> packages.add(l.pkg()));
            for (String pkg : out.substring("missing: ".length()).split(" "))
                assertTrue(packages.contains(pkg), pkg + " is not a package of .ci/run's list: " + out);
            if ("true".equalsIgnoreCase(System.getenv("CI")))
                throw new IllegalStateException("CI=true and tools are missing after .ci/run installed them: " + out);
        }
    }
}
