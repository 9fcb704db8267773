package io.moses.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Self-signed certificates made with openssl, as an operator would, and clients that trust them. */
final class TestCertificates {
    private TestCertificates() {}

    /** A certificate and key for 127.0.0.1 and localhost: {@code NAME.crt} (PEM) and {@code NAME.key} (PKCS#8 PEM) in {@code dir}. */
    static Path[] selfSigned(Path dir, String name) throws IOException, InterruptedException {
        Path cert = dir.resolve(name + ".crt"), key = dir.resolve(name + ".key");
        run(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out", cert.toString(),
                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"));
        return new Path[] {cert, key};
    }

    /** Runs a command to its end; its output (stdout and stderr), or a failure with it. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(command + " failed:\n" + out);
        return out;
    }

    /** A client context that trusts the PEM certificates in {@code pem}, and nothing else. */
    static SSLContext trusting(Path pem) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) trusted.setCertificateEntry("c" + i++, c);
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, f.getTrustManagers(), null);
        return context;
    }
}
