package io.moses.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java main class run as a real child process with this JVM's class path; its output is
 * collected so a test can wait for a line and show what happened when it fails.
 */
public final class ChildProcess implements AutoCloseable {
    public final Process process;
    private final List<String> output = java.util.Collections.synchronizedList(new ArrayList<>());
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    public ChildProcess(String mainClass, List<String> args) throws IOException {
        this(mainClass, args, java.util.Map.of());
    }

    /** @param env environment variables added to this JVM's */
    public ChildProcess(String mainClass, List<String> args, java.util.Map<String, String> env) throws IOException {
        this(mainClass, args, env, System.getProperty("java.class.path"));
    }

    /** @param classPath the child's class path (this JVM's, for the other constructors) */
    public ChildProcess(String mainClass, List<String> args, java.util.Map<String, String> env, String classPath) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        // C1 only and the serial collector: a broker's start took half the CPU (8.5 s against 16.3 s),
        // and the tests judge behaviour, never a child's peak speed
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.environment().putAll(env);
        process = builder.start();
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    output.add(line);
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // process ended
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * A command-line client ({@code io.moses.cli.*}) on the class path {@code ./moses} runs it on:
     * the cli module's, without ODE or Camel.
     *
     * @param env environment variables added to this JVM's
     */
    public static ChildProcess commandLine(String mainClass, List<String> args, java.util.Map<String, String> env) throws IOException {
        return new ChildProcess(mainClass, args, env, commandLineClassPath());
    }

    /** The cli module's classes and libraries, which its build lists in target/classpath.txt. */
    static String commandLineClassPath() throws IOException {
        Path target = Path.of("../cli/target");
        return target.resolve("classes").toAbsolutePath() + java.io.File.pathSeparator
                + java.nio.file.Files.readString(target.resolve("classpath.txt")).strip();
    }

    /** Waits for a line matching {@code pattern}; returns its first group. */
    public String await(Pattern pattern, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                Matcher m = pattern.matcher(line);
                if (m.find()) return m.groupCount() > 0 ? m.group(1) : line;
            }
            if (!process.isAlive() && lines.isEmpty())
                throw new IllegalStateException("child exited with " + process.exitValue() + ":\n" + output());
        }
        throw new IllegalStateException("no line matching " + pattern + " within " + seconds + " s:\n" + output());
    }

    public String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** Everything the process wrote, once it has exited and its output is read to the end. */
    public String finalOutput() throws InterruptedException {
        reader.join(10_000); // bounds a hang only: the reader ends at the end of the output
        return output();
    }

    /** SIGTERM, then wait; returns the exit code. */
    public int stop(long seconds) throws InterruptedException {
        process.toHandle().destroy(); // SIGTERM without closing our end of its output (Process.destroy would)
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
            reader.join(2000);
            return -1;
        }
        reader.join(2000);
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) stop(10);
    }
}
