package io.moses.core.engine;

import java.nio.file.Path;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * Compiles a deployment unit exactly as a deploy does ({@link DeploymentUnit}: copied, compiled
 * with ODE's compiler, deploy.xml and WSDLs checked), without deploying it: for the checks that
 * the shipped processes deploy.
 */
public final class UnitCompiler {
    private UnitCompiler() {}

    /**
     * Copies {@code unit} under {@code workRoot} and compiles it.
     *
     * @return each process type's compiled file
     * @throws DeploymentException with the reason a deploy would give (ODE's compiler messages included)
     */
    public static Map<QName, Path> compile(Path unit, Path workRoot) {
        return DeploymentUnit.load(unit, workRoot, 1).compiled;
    }
}
