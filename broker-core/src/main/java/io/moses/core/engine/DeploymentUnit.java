package io.moses.core.engine;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.wsdl.Definition;
import javax.wsdl.WSDLException;
import javax.wsdl.xml.WSDLReader;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.compiler.BpelC;
import org.apache.ode.bpel.compiler.DefaultResourceFinder;
import org.apache.ode.bpel.compiler.WSDLLocatorImpl;
import org.apache.ode.bpel.compiler.api.CompilationException;
import org.apache.ode.bpel.compiler.wsdl.Definition4BPEL;
import org.apache.ode.bpel.compiler.wsdl.WSDLFactory4BPEL;
import org.apache.ode.bpel.compiler.wsdl.WSDLFactoryBPEL20;
import org.apache.ode.bpel.dd.DeployDocument;
import org.apache.ode.bpel.dd.TDeployment;
import org.apache.ode.store.DocumentRegistry;
import org.apache.xmlbeans.XmlOptions;

/**
 * A deployment unit in Apache ODE's own format: a directory with deploy.xml, the .bpel files,
 * WSDLs and XSDs. It is copied into the broker's work directory (compiled .cbp files never
 * land in the user's directory), compiled with ODE's compiler and its WSDLs read.
 */
final class DeploymentUnit {
    private static final String OLD_DD_NS = "http://ode.fivesight.com/schemas/2006/06/27/dd";
    private static final String DD_NS = "http://www.apache.org/ode/schemas/dd/2007/03";

    final String name;
    final Path dir;
    final long version;
    final DeployDocument descriptor;
    final DocumentRegistry wsdls;
    /** Process type (the BPEL process QName) -> compiled file. */
    final Map<QName, Path> compiled;
    /** Process type -> its .bpel file. */
    final Map<QName, Path> sources;
    /** The unit's files, hashed: the same unit deployed after a restart has the same one (a durable process's id). */
    final String digest;

    private DeploymentUnit(String name, Path dir, long version, DeployDocument descriptor, DocumentRegistry wsdls,
                           Map<QName, Path> compiled, Map<QName, Path> sources, String digest) {
        this.digest = digest;
        this.name = name;
        this.dir = dir;
        this.version = version;
        this.descriptor = descriptor;
        this.wsdls = wsdls;
        this.compiled = compiled;
        this.sources = sources;
    }

    /**
     * Copies {@code source} to {@code workRoot/<name>-<version>}, compiles every process in it
     * and reads its WSDLs.
     *
     * @throws DeploymentException with a reason a user can act on
     */
    static DeploymentUnit load(Path source, Path workRoot, long version) {
        if (!Files.isDirectory(source))
            throw new DeploymentException(source + " is not a directory (a deployment unit is a directory with deploy.xml)");
        if (!Files.isRegularFile(source.resolve("deploy.xml")))
            throw new DeploymentException(source + " has no deploy.xml");
        String name = source.toAbsolutePath().normalize().getFileName().toString();
        Path dir = workRoot.resolve(name + "-" + version);
        try {
            UnitXml.check(source); // before XMLBeans, WSDL4J or ODE's compiler reads any of it
            return compileCopy(source, name, dir, version);
        } catch (DeploymentException e) {
            delete(dir); // a refused unit leaves no work directory behind
            // the reason reaches the operator's client and the logs: the unit's name, not the server's directories
            throw new DeploymentException(scrub(e.getMessage(), name, source, dir));
        } catch (RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    /** A reason with the server's paths of the unit replaced by the unit's name. */
    static String scrub(String reason, String name, Path... dirs) {
        String out = reason == null ? "" : reason;
        for (Path d : dirs) {
            Path abs = d.toAbsolutePath().normalize();
            // ODE's compiler names a file by its URI, "file:/work/x-1/P.bpel:21: error: ...": the user gets "x/P.bpel:21: ..."
            out = out.replace(abs.toUri().toString(), name + "/").replace("file:" + abs + "/", name + "/").replace(abs.toString(), name);
            if (!d.toString().equals(abs.toString())) out = out.replace(d.toString(), name);
        }
        return out;
    }

    private static DeploymentUnit compileCopy(Path source, String name, Path dir, long version) {
        try {
            copyTree(source, dir);
        } catch (IOException e) {
            throw new DeploymentException("cannot copy " + source + " to " + dir + ": " + e.getMessage());
        }
        String digest = digest(dir);
        DeployDocument dd = readDescriptor(dir.resolve("deploy.xml"));
        Map<QName, Path> sources = new HashMap<>();
        Map<QName, Path> compiled = new HashMap<>();
        List<Path> bpels = list(dir, ".bpel");
        if (bpels.isEmpty()) throw new DeploymentException(source + " contains no .bpel process");
        for (Path bpel : bpels) {
            QName type = compile(dir, bpel, version);
            stampGuid(cbpOf(bpel), digest);
            sources.put(type, bpel);
            compiled.put(type, cbpOf(bpel));
        }
        for (TDeployment.Process p : dd.getDeploy().getProcessArray()) {
            QName type = p.getType() != null ? p.getType() : p.getName();
            if (!compiled.containsKey(type))
                throw new DeploymentException("deploy.xml names process " + type + " but no .bpel in " + source
                        + " defines it (found " + compiled.keySet() + ")");
        }
        return new DeploymentUnit(name, dir, version, dd, readWsdls(dir), Map.copyOf(compiled), Map.copyOf(sources), digest);
    }

    /** SHA-256 of the unit's files (relative names and contents, in name order; compiled files left out), 12 hex digits. */
    private static String digest(Path dir) {
        try (var files = Files.walk(dir)) {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".cbp")).sorted().toList()) {
                sha.update(dir.relativize(f).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(Files.readAllBytes(f));
            }
            return java.util.HexFormat.of().formatHex(sha.digest()).substring(0, 12);
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            throw new DeploymentException("cannot read " + dir + ": " + e.getMessage());
        }
    }

    private static DeployDocument readDescriptor(Path file) {
        try {
            XmlOptions options = new XmlOptions();
            options.setLoadSubstituteNamespaces(Map.of(OLD_DD_NS, DD_NS));
            DeployDocument dd = DeployDocument.Factory.parse(file.toFile(), options);
            if (dd.getDeploy() == null || dd.getDeploy().getProcessArray().length == 0)
                throw new DeploymentException(file + " declares no <process>");
            return dd;
        } catch (DeploymentException e) {
            throw e;
        } catch (Exception e) {
            throw new DeploymentException("invalid deploy.xml " + file + ": " + e.getMessage());
        }
    }

    /** Compiles one process with ODE's own compiler; returns the process QName. */
    private static QName compile(Path dir, Path bpel, long version) {
        BpelC compiler = BpelC.newBpelCompiler();
        compiler.setBaseDirectory(dir.toFile());
        List<String> errors = new ArrayList<>();
        compiler.setCompileListener(msg -> {
            if (msg.severity >= org.apache.ode.bpel.compiler.api.CompilationMessage.ERROR)
                errors.add(msg.toErrorString());
        });
        try {
            compiler.compile(bpel.toFile(), version);
        } catch (CompilationException e) {
            String detail = errors.isEmpty() ? e.getMessage() : String.join("; ", errors);
            throw new DeploymentException("invalid BPEL " + dir.relativize(bpel) + ": " + detail);
        } catch (IOException e) {
            throw new DeploymentException("cannot compile " + bpel + ": " + e.getMessage());
        } catch (RuntimeException e) {
            throw new DeploymentException("invalid BPEL " + dir.relativize(bpel) + ": " + e);
        }
        return CompiledProcess.typeOf(cbpOf(bpel));
    }

    /**
     * Gives the compiled process the unit's digest as its GUID. ODE's compiler makes a new GUID at
     * every compile, and ODE keeps a durable process's instances under the process row of its GUID:
     * the same unit compiled again after a restart must be the same process, not a new one.
     */
    private static void stampGuid(Path cbp, String digest) {
        try {
            org.apache.ode.bpel.o.OProcess process;
            long compiled;
            try (var in = Files.newInputStream(cbp)) {
                org.apache.ode.bpel.o.Serializer read = new org.apache.ode.bpel.o.Serializer(in);
                compiled = read.compileTime;
                process = read.readOProcess();
            }
            process.guid = "moses-" + digest + "-" + process.getName();
            try (var out = Files.newOutputStream(cbp)) {
                new org.apache.ode.bpel.o.Serializer(compiled).writeOProcess(process, out);
            }
        } catch (IOException | ClassNotFoundException e) {
            throw new DeploymentException("cannot read the compiled process " + cbp.getFileName() + ": " + e.getMessage());
        }
    }

    private static Path cbpOf(Path bpel) {
        String f = bpel.getFileName().toString();
        return bpel.resolveSibling(f.substring(0, f.length() - ".bpel".length()) + ".cbp");
    }

    private static DocumentRegistry readWsdls(Path dir) {
        DocumentRegistry registry = new DocumentRegistry();
        WSDLFactory4BPEL factory = (WSDLFactory4BPEL) WSDLFactoryBPEL20.newInstance();
        WSDLReader reader = factory.newWSDLReader();
        reader.setFeature("javax.wsdl.verbose", false);
        File base = dir.toFile();
        DefaultResourceFinder finder = new DefaultResourceFinder(base, base);
        for (Path wsdl : list(dir, ".wsdl")) {
            try {
                Definition def = reader.readWSDL(new WSDLLocatorImpl(finder, base.toURI().relativize(wsdl.toUri())));
                registry.addDefinition((Definition4BPEL) def);
            } catch (WSDLException | CompilationException e) {
                throw new DeploymentException("invalid WSDL " + dir.relativize(wsdl) + ": " + e.getMessage());
            }
        }
        return registry;
    }

    private static List<Path> list(Path dir, String suffix) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new DeploymentException("cannot read " + dir + ": " + e.getMessage());
        }
    }

    /** Deletes a unit's work directory (a refused or retired version); what cannot be deleted is left. */
    static void delete(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a leftover directory is harmless: the next version gets a new one
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
