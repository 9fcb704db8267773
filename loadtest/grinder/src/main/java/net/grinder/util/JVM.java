package net.grinder.util;

import net.grinder.common.GrinderException;
import org.slf4j.Logger;

/**
 * Stands in for The Grinder 3.11's own {@code net.grinder.util.JVM}, whose version check parses
 * "17.0.x" as an old 1.x version and refuses to start. This class comes first on Grinder's class
 * path (module loadtest/grinder), keeps the signatures Grinder calls and asks
 * {@link Runtime#version()} instead. Written for this project, not copied from Grinder.
 */
public final class JVM {
    private static final JVM INSTANCE = new JVM();
    private final int feature = Runtime.version().feature();

    private JVM() {}

    public static JVM getInstance() {
        return INSTANCE;
    }

    /** Grinder needs Java 6 or later; every Java this project runs on qualifies. */
    public boolean haveRequisites(Logger logger) throws VersionException {
        if (!isAtLeastVersion(1, 6)) {
            String message = "The Grinder needs Java 6 or later, this is " + this;
            if (logger != null) logger.error(message);
            return false;
        }
        return true;
    }

    /**
     * Grinder asks in the old "1.minor" scheme (1.6 = Java 6); a major above 1 is a modern
     * feature release number.
     */
    public boolean isAtLeastVersion(int major, int minor) throws VersionException {
        if (major < 1) throw new VersionException("not a Java version: " + major + "." + minor);
        int wanted = major == 1 ? minor : major;
        return feature >= wanted;
    }

    @Override
    public String toString() {
        return System.getProperty("java.vm.name") + " " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")";
    }

    /** The exception Grinder's callers declare. */
    public static final class VersionException extends GrinderException {
        public VersionException(String message) {
            super(message);
        }
    }
}
