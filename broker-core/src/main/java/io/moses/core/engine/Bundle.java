package io.moses.core.engine;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * A process bundle: a zip of an ODE deployment unit (deploy.xml, .bpel, .wsdl, .xsd), at its
 * root or in one top folder. Unpacked only if every entry is a plain relative path (no "..",
 * no absolute path, no drive letter) and the whole stays within the limits: a hostile zip
 * cannot write outside the target or fill the disk.
 */
public final class Bundle {
    static final int MAX_ENTRIES = 1000;
    static final long MAX_UNPACKED_BYTES = 50L << 20;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    private Bundle() {}

    /** Checks a unit name (it becomes a directory name): letters, digits, '.', '_', '-'. */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches() || name.contains(".."))
            throw new DeploymentException("process bundle name must be 1 to 100 letters, digits, '.', '_' or '-', was '" + name + "'");
        return name;
    }

    /**
     * Unpacks {@code zip} into {@code parent/name}, which must not exist yet.
     *
     * @return the unit directory (with deploy.xml)
     * @throws DeploymentException when the bytes are not a zip of a deployment unit, or break the rules above
     */
    public static Path unpack(byte[] zip, Path parent, String name) {
        checkName(name);
        record Entry(String path, byte[] bytes) {}
        List<Entry> files = new ArrayList<>();
        long total = 0;
        int count = 0;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                if (++count > MAX_ENTRIES) throw new DeploymentException("the bundle has more than " + MAX_ENTRIES + " entries");
                String path = e.getName();
                checkEntry(path);
                if (e.isDirectory()) continue;
                byte[] bytes = readLimited(in, MAX_UNPACKED_BYTES - total, path);
                total += bytes.length;
                files.add(new Entry(path, bytes));
            }
        } catch (ZipException e) {
            throw new DeploymentException("the bundle is not a valid zip: " + e.getMessage());
        } catch (IOException e) {
            throw new DeploymentException("cannot read the bundle: " + e.getMessage());
        }
        if (files.isEmpty()) throw new DeploymentException("the bundle is not a zip of a deployment unit (no files in it)");
        // deploy.xml at the root, or under one top folder
        String prefix;
        if (files.stream().anyMatch(f -> f.path().equals("deploy.xml"))) prefix = "";
        else {
            List<String> tops = files.stream().map(f -> f.path().contains("/") ? f.path().substring(0, f.path().indexOf('/') + 1) : "")
                    .distinct().toList();
            if (tops.size() != 1 || tops.get(0).isEmpty() || files.stream().noneMatch(f -> f.path().equals(tops.get(0) + "deploy.xml")))
                throw new DeploymentException("the bundle is not a deployment unit: no deploy.xml at its root or in its one top folder");
            prefix = tops.get(0);
        }
        Path dir = parent.resolve(name).normalize();
        try {
            if (Files.exists(dir)) throw new DeploymentException("cannot unpack: " + dir + " exists");
            Files.createDirectories(dir);
            for (Entry f : files) {
                Path target = dir.resolve(f.path().substring(prefix.length())).normalize();
                if (!target.startsWith(dir)) throw new DeploymentException("entry '" + f.path() + "' leaves the bundle");
                Files.createDirectories(target.getParent());
                try (OutputStream out = Files.newOutputStream(target)) {
                    out.write(f.bytes());
                }
            }
        } catch (IOException e) {
            throw new DeploymentException("cannot unpack the bundle into " + dir + ": " + e.getMessage());
        }
        return dir;
    }

    /**
     * A deployment unit's directory as a bundle: its files by relative name, in name order,
     * compiled processes (.cbp) left out (the engine compiles every unit it deploys).
     */
    public static byte[] zip(Path dir) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(out); var files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".cbp")).sorted().toList()) {
                z.putNextEntry(new ZipEntry(dir.relativize(f).toString().replace('\\', '/')));
                z.write(Files.readAllBytes(f));
                z.closeEntry();
            }
        } catch (IOException e) {
            throw new DeploymentException("cannot read " + dir + ": " + e.getMessage());
        }
        return out.toByteArray();
    }

    private static void checkEntry(String path) {
        if (path.isEmpty() || path.startsWith("/") || path.startsWith("\\") || path.contains("\\") || path.matches("^[A-Za-z]:.*")
                || path.indexOf('\0') >= 0)
            throw new DeploymentException("entry '" + path + "' has an absolute path: refused");
        for (String segment : path.split("/"))
            if (segment.equals("..")) throw new DeploymentException("entry '" + path + "' contains '..': refused");
    }

    private static byte[] readLimited(InputStream in, long left, String path) throws IOException {
        byte[] buf = new byte[8192];
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int n; (n = in.read(buf)) > 0; ) {
            if (out.size() + (long) n > left)
                throw new DeploymentException("the bundle unpacks to more than " + (MAX_UNPACKED_BYTES >> 20) + " MB (at " + path + ")");
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }
}
