package io.moses.core;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.Mdal;
import io.moses.sla.Accounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code moses operator set NAME}: creates an operator, or sets an operator's password, straight
 * in the knowledge base, with no broker running (the way back in when no operator can log in).
 * Running replicas take the change at their next refresh. The password comes from
 * {@code --password-file} or is asked twice on the terminal, never from the command line.
 */
public final class OperatorCommand {
    static final String USAGE = """
            usage: moses operator set NAME [--db SPEC | --work DIR] [--password-file F]
              creates operator NAME (at rate 0 in the cheapest class), or sets its password if it exists
              --db     the knowledge base, as for moses run (default WORK/knowledge; MOSES_DB_USER, MOSES_DB_PASSWORD)
              --password-file  the new password is the file's first line (default: asked twice, not echoed)
            exit status: 0 done, 1 refused or the knowledge base unreachable, 2 bad usage""";

    private OperatorCommand() {}

    public static void main(String[] args) {
        String db = null, work = "work", file = null, name = null;
        if (args.length == 0 || !args[0].equals("set")) usage(args.length == 0 || args[0].matches("-h|--help|help") ? null : "unknown command");
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--db" -> db = value(args, ++i);
                case "--work" -> work = value(args, ++i);
                case "--password-file" -> file = value(args, ++i);
                case "-h", "--help" -> usage(null);
                default -> {
                    if (args[i].startsWith("--") || name != null) usage("unexpected " + args[i]);
                    name = args[i];
                }
            }
        }
        if (name == null) usage("name the operator");
        char[] password = password(file, name);
        String spec = db != null ? db : Path.of(work).resolve("knowledge").toString();
        boolean created;
        try (KnowledgeBase kb = Mdal.open(spec, Credentials.fromEnvironment())) {
            created = Accounts.setOperator(kb, name, password);
        } catch (IllegalArgumentException | KnowledgeBaseException e) {
            System.err.println("moses operator: " + e.getMessage());
            System.exit(1);
            return;
        } finally {
            java.util.Arrays.fill(password, '\0');
        }
        // after the knowledge base's own closing line: the command's answer is its last line
        System.out.println(created ? "operator " + name + " created" : "password of operator " + name + " set");
    }

    private static char[] password(String file, String name) {
        if (file != null) {
            try {
                String line = Files.readString(Path.of(file)).lines().findFirst().orElse("");
                if (line.isEmpty()) usage("--password-file " + file + " is empty");
                return line.toCharArray();
            } catch (IOException | java.io.UncheckedIOException e) {
                usage("--password-file " + file + ": cannot read (" + e.getClass().getSimpleName() + ")");
            }
        }
        java.io.Console console = System.console();
        if (console == null) usage("no terminal to ask the password on: give --password-file FILE");
        char[] first = console.readPassword("new password of %s: ", name);
        char[] again = console.readPassword("new password of %s, again: ", name);
        if (!java.util.Arrays.equals(first, again)) usage("the two passwords differ");
        return first;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) usage(args[i - 1] + " needs a value");
        return args[i];
    }

    private static void usage(String error) {
        if (error == null) {
            System.out.println(USAGE);
            System.exit(0);
        }
        System.err.println("moses operator: " + error);
        System.err.println(USAGE);
        System.exit(2);
    }
}
