package io.moses.core.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/commands.md is what the commands answer to {@code --help}: each Java command is run as
 * a child JVM on this module's test class path (which holds the broker, the command-line
 * clients and the load tools), the shell commands' usage is their scripts' header. On a
 * difference the page it expects is written to target/commands.md: copy it over docs/commands.md.
 */
class CommandsReferenceTest {
    static final Path PAGE = Markdown.ROOT.resolve("docs/commands.md");
    /** What ./moses does that has no options of its own beyond the overview: no section of its own. */
    static final Set<String> WITHOUT_OPTIONS = Set.of("build", "java", "jvm-options", "aot", "test", "help");

    /** Each command's section: how its usage is had. */
    static Map<String, Usage> commands() {
        Map<String, Usage> c = new LinkedHashMap<>();
        c.put("moses", () -> header(Markdown.ROOT.resolve("moses")));
        c.put("moses run", () -> help("io.moses.core.Main"));
        c.put("moses demo", () -> help("io.moses.loadtest.demo.Demo"));
        c.put("moses demo takeover", () -> header(Markdown.ROOT.resolve("cluster/demo-takeover.sh")));
        c.put("moses operator", () -> help("io.moses.core.OperatorCommand"));
        c.put("moses stubs", () -> help("io.moses.loadtest.stubs.StubServer"));
        c.put("moses plan", () -> help("io.moses.cli.PlanCommand"));
        c.put("moses sla", () -> help("io.moses.cli.SlaCommand"));
        c.put("moses services", () -> help("io.moses.cli.ServicesCommand"));
        c.put("moses admin", () -> help("io.moses.cli.AdminCommand"));
        c.put("moses load", () -> help("io.moses.loadtest.driver.ClosedLoopDriver"));
        c.put("moses cluster", () -> header(Markdown.ROOT.resolve("cluster/cluster.sh")));
        // the evaluation module comes after this one in the build: its usage as its source holds it
        c.put("moses bench", () -> textBlock(Markdown.ROOT.resolve("loadtest/evaluation/src/main/java/io/moses/evaluation/Bench.java"), "usage: moses bench"));
        return c;
    }

    interface Usage {
        String text() throws Exception;
    }

    @Test
    void thePageIsWhatTheCommandsAnswer() throws Exception {
        String expected = page();
        String actual = Files.exists(PAGE) ? Files.readString(PAGE) : "";
        if (!expected.equals(actual)) {
            Path out = Path.of("target/commands.md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, expected);
        }
        assertEquals(expected, actual, "docs/commands.md differs from what the commands answer to --help:"
                + " the page they answer is in broker-core/target/commands.md; copy it to docs/commands.md");
    }

    @Test
    void everyCommandOfTheLauncherHasItsSection() throws Exception {
        String launcher = Files.readString(Markdown.ROOT.resolve("moses"));
        Matcher cases = Pattern.compile("(?m)^  ([a-z|-]+)\\)").matcher(launcher.substring(launcher.indexOf("case \"$cmd\" in")));
        Set<String> missing = new TreeSet<>();
        while (cases.find())
            for (String cmd : cases.group(1).split("\\|"))
                if (!cmd.startsWith("-") && !WITHOUT_OPTIONS.contains(cmd) && !commands().containsKey("moses " + cmd)) missing.add(cmd);
        assertTrue(missing.isEmpty(), "./moses commands without a section in docs/commands.md (add them to this test): " + missing);
    }

    static String page() throws Exception {
        StringBuilder b = new StringBuilder("""
                # Commands

                This page lists every `./moses` command and its options, as the command's `--help` prints them.
                What each command does, in words, is in the [operator's guide](operator-guide.md#one-broker).

                Do not edit the blocks by hand: `CommandsReferenceTest` (broker-core) runs each command and
                compares. On a difference it writes the page it expects to `broker-core/target/commands.md`.

                """);
        for (Map.Entry<String, Usage> c : commands().entrySet()) {
            b.append("## `").append(c.getKey()).append("`\n\n```text\n").append(c.getValue().text().strip()).append("\n```\n\n");
        }
        return b.toString().stripTrailing() + "\n";
    }

    /** What a Java command prints for --help; a command without the option prints its usage after saying so. */
    static String help(String mainClass) throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), mainClass, "--help");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), mainClass + " --help ended");
        List<String> lines = new ArrayList<>(List.of(new String(out, StandardCharsets.UTF_8).split("\n", -1)));
        lines.removeIf(l -> l.matches(".*unknown (option|argument) '?--help'?.*") && !l.contains("usage"));
        String text = String.join("\n", lines).strip();
        assertTrue(text.contains("usage"), mainClass + " --help prints its usage: " + text);
        return text;
    }

    /** A script's usage: its comment lines after the shebang, up to its first command. */
    static String header(Path script) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(script).subList(1, Files.readAllLines(script).size())) {
            if (!line.startsWith("#")) break;
            out.add(line.replaceFirst("^# ?", ""));
        }
        return String.join("\n", out);
    }

    /** The Java text block of a source file that begins with {@code start}. */
    static String textBlock(Path source, String start) throws IOException {
        String s = Files.readString(source);
        int at = s.indexOf(start);
        assertTrue(at > 0, source + " holds '" + start + "'");
        int end = s.indexOf("\"\"\"", at);
        String block = s.substring(s.lastIndexOf('\n', at) + 1, end);
        return block.stripIndent().strip();
    }
}
