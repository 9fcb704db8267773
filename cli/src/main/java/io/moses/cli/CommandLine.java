package io.moses.cli;

import jakarta.xml.ws.BindingProvider;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of {@code moses sla} and {@code moses services}: the command, its arguments and
 * options, the broker and the caller's credentials; and how a command ends (exit status 0, 1, 2).
 */
final class CommandLine {
    final String command;
    final List<String> positional;
    private final Map<String, String> options;

    private CommandLine(String command, List<String> positional, Map<String, String> options) {
        this.command = command;
        this.positional = positional;
        this.options = options;
    }

    /** {@code COMMAND [ARG]... [--option VALUE]...}; every option takes a value except --help. */
    static CommandLine parse(String[] args, Set<String> known, String usage) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            System.out.println(usage);
            System.exit(0);
        }
        Map<String, String> options = new HashMap<>();
        java.util.ArrayList<String> positional = new java.util.ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                System.out.println(usage);
                System.exit(0);
            }
            if (a.startsWith("--")) {
                if (!known.contains(a)) fail(usage, "unknown option " + a);
                if (i + 1 >= args.length) fail(usage, a + " needs a value");
                options.put(a, args[++i]);
            } else {
                positional.add(a);
            }
        }
        return new CommandLine(args[0], List.copyOf(positional), options);
    }

    String option(String name) {
        return options.get(name);
    }

    String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    Double number(String name, String usage) {
        String v = options.get(name);
        if (v == null) return null;
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            fail(usage, name + " needs a number, got '" + v + "'");
            return null;
        }
    }

    String required(String name, String usage) {
        String v = options.get(name);
        if (v == null) fail(usage, name + " is required");
        return v;
    }

    String broker() {
        String b = options.getOrDefault("--broker", System.getenv().getOrDefault("MOSES_BROKER", "http://127.0.0.1:8080"));
        return b.replaceAll("/+$", "");
    }

    /** HTTP Basic credentials: --user (or MOSES_USER) and the password from MOSES_PASSWORD, never the command line. */
    void authenticate(Object port, String usage, boolean required) {
        String user = options.getOrDefault("--user", System.getenv("MOSES_USER"));
        String password = System.getenv("MOSES_PASSWORD");
        if (user == null) {
            if (required) fail(usage, "give --user NAME (or MOSES_USER) and the password in MOSES_PASSWORD");
            return;
        }
        if (password == null) {
            java.io.Console console = System.console();
            if (console == null) fail(usage, "set MOSES_PASSWORD to the password of " + user);
            password = new String(console.readPassword("password of %s: ", user));
        }
        ((BindingProvider) port).getRequestContext().put(BindingProvider.USERNAME_PROPERTY, user);
        ((BindingProvider) port).getRequestContext().put(BindingProvider.PASSWORD_PROPERTY, password);
    }

    /**
     * A new password: the first line of {@code file} (a secret file; null: asked twice on the
     * terminal, not echoed). Never from the command line, where {@code ps} shows it.
     */
    static String newPassword(String file, String who, String usage) {
        if (file != null) {
            try {
                String text = java.nio.file.Files.readString(java.nio.file.Path.of(file));
                String line = text.lines().findFirst().orElse("");
                if (line.isEmpty()) fail(usage, "--password-file " + file + " is empty");
                return line;
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                fail(usage, "--password-file " + file + ": cannot read (" + e.getClass().getSimpleName() + ")");
                return null;
            }
        }
        java.io.Console console = System.console();
        if (console == null) fail(usage, "no terminal to ask the new password on: give --password-file FILE");
        String first = new String(console.readPassword("new password of %s: ", who));
        String again = new String(console.readPassword("new password of %s, again: ", who));
        if (!first.equals(again)) fail(usage, "the two new passwords differ");
        return first;
    }

    static void fail(String usage, String message) {
        System.err.println(message);
        System.err.println(usage);
        System.exit(2);
    }

    /** A refusal or an unreachable broker: one line, exit 1. */
    static void refused(String code, String message) {
        System.err.println("refused (" + code + "): " + message);
        System.exit(1);
    }

    static void unreachable(String broker, Exception e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        System.err.println("cannot talk to the broker at " + broker + ": " + root.getClass().getSimpleName() + ": " + root.getMessage());
        System.exit(1);
    }
}
