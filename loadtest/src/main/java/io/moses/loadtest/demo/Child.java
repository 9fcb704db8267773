package io.moses.loadtest.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A process the demo starts: output to a log file, waited on for a line, stopped with SIGTERM. */
public final class Child implements AutoCloseable {
    final String name;
    final Process process;
    final Path log;

    public Child(String name, String classpath, String mainClass, List<String> args, Path log) throws IOException {
        this(name, List.of(), classpath, mainClass, args, log);
    }

    /** @param jvmOptions options for the child's JVM (for example the AOT cache ./moses gives brokers) */
    public Child(String name, List<String> jvmOptions, String classpath, String mainClass, List<String> args, Path log) throws IOException {
        this(name, jvmOptions, java.util.Map.of(), classpath, mainClass, args, log);
    }

    /** @param environment variables set for the child, beside this process's own */
    public Child(String name, List<String> jvmOptions, java.util.Map<String, String> environment, String classpath, String mainClass,
                 List<String> args, Path log) throws IOException {
        this.name = name;
        this.log = log;
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        process = builder.start();
    }

    /** The process id, for CPU accounting from outside (benchmarks). */
    public long pid() {
        return process.pid();
    }

    /** Waits for a line of its log matching {@code pattern}; returns group 1. */
    public String await(Pattern pattern, long seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            for (String line : Files.readAllLines(log)) {
                Matcher m = pattern.matcher(line);
                if (m.find()) return m.group(1);
            }
            if (!process.isAlive()) throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail(20));
            Thread.sleep(100);
        }
        throw new IllegalStateException(name + " did not start within " + seconds + " s:\n" + tail(20));
    }

    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) return;
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) { // a broker recording its AOT configuration writes it at exit
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
