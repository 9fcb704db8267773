package io.moses.bpel;

import io.moses.core.engine.DeploymentException;
import io.moses.core.engine.UnitCompiler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Compiles a deployment unit with the broker's own deploy code ({@link UnitCompiler}: ODE's
 * compiler on a copy of the unit, so compiled files never land in the source tree), so that
 * what these tests accept is what a deploy accepts.
 */
final class ProcessCompiler {
    /** The outcome of compiling one .bpel file, or of a unit refused as a whole (then {@code bpel} is the unit). */
    record Outcome(Path bpel, Path cbp, List<String> errors) {
        boolean ok() {
            return errors.isEmpty() && cbp != null && Files.isRegularFile(cbp);
        }
    }

    private ProcessCompiler() {}

    /** Copies {@code unit} under {@code scratch} and compiles every .bpel in it. */
    static List<Outcome> compileUnit(Path unit, Path scratch) {
        try {
            return UnitCompiler.compile(unit, scratch).values().stream().sorted()
                    .map(cbp -> new Outcome(bpelOf(cbp), cbp, List.of())).toList();
        } catch (DeploymentException e) {
            return List.of(new Outcome(unit, null, List.of(e.getMessage())));
        }
    }

    /** Compiles {@code unit} (a copy in a scratch directory of its own); one outcome for the whole unit. */
    static Outcome compile(Path unit) {
        List<Outcome> outcomes = compileUnit(unit, unit.resolveSibling(unit.getFileName() + "-compiled"));
        return outcomes.stream().filter(o -> !o.ok()).findFirst().orElse(outcomes.get(0));
    }

    private static Path bpelOf(Path cbp) {
        String f = cbp.getFileName().toString();
        return cbp.resolveSibling(f.substring(0, f.length() - ".cbp".length()) + ".bpel");
    }

    static List<Path> list(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p))
                    .sorted().toList();
        }
    }
}
