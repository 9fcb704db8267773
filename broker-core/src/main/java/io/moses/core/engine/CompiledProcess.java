package io.moses.core.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.o.Serializer;

/** Reads the header of a compiled (.cbp) process. */
final class CompiledProcess {
    private CompiledProcess() {}

    static QName typeOf(Path cbp) {
        try (InputStream in = Files.newInputStream(cbp)) {
            return new Serializer(in).type;
        } catch (IOException e) {
            throw new DeploymentException("cannot read compiled process " + cbp + ": " + e.getMessage());
        }
    }
}
