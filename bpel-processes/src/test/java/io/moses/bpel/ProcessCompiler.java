package io.moses.bpel;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.ode.bpel.compiler.BpelC;
import org.apache.ode.bpel.compiler.api.CompilationException;
import org.apache.ode.bpel.compiler.api.CompilationMessage;

/**
 * Compiles a deployment unit with Apache ODE's own compiler. ODE 1.3.7's BpelC always writes
 * the .cbp next to the .bpel, so the unit is first copied to a scratch directory: compiled
 * files never land in the source tree.
 */
final class ProcessCompiler {
    /** The outcome of compiling one .bpel file. */
    record Outcome(Path bpel, Path cbp, List<String> errors) {
        boolean ok() {
            return errors.isEmpty() && cbp != null && Files.isRegularFile(cbp);
        }
    }

    private ProcessCompiler() {}

    /** Copies {@code unit} to {@code scratch/<unit name>} and compiles every .bpel in it. */
    static List<Outcome> compileUnit(Path unit, Path scratch) throws IOException {
        Path dir = scratch.resolve(unit.getFileName().toString());
        copyTree(unit, dir);
        List<Outcome> outcomes = new ArrayList<>();
        for (Path bpel : list(dir, ".bpel")) outcomes.add(compile(dir, bpel));
        return outcomes;
    }

    static Outcome compile(Path baseDir, Path bpel) {
        BpelC compiler = BpelC.newBpelCompiler();
        compiler.setBaseDirectory(baseDir.toFile());
        List<String> errors = new ArrayList<>();
        compiler.setCompileListener(msg -> {
            if (msg.severity >= CompilationMessage.ERROR) errors.add(msg.toErrorString());
        });
        try {
            compiler.compile(bpel.toFile(), 1L);
        } catch (CompilationException e) {
            if (errors.isEmpty()) errors.add(e.getMessage());
        } catch (IOException | RuntimeException e) {
            errors.add(e.toString());
        }
        String name = bpel.getFileName().toString();
        Path cbp = bpel.resolveSibling(name.substring(0, name.length() - ".bpel".length()) + ".cbp");
        return new Outcome(bpel, Files.isRegularFile(cbp) ? cbp : null, List.copyOf(errors));
    }

    static List<Path> list(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p))
                    .sorted().toList();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(d).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                if (!f.getFileName().toString().endsWith(".cbp"))
                    Files.copy(f, to.resolve(from.relativize(f).toString()), StandardCopyOption.REPLACE_EXISTING);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
