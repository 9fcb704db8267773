package io.moses.core.frontend;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The certificate chain and private key a broker serves TLS with, read from PEM files: the
 * chain (the server's certificate first, then its issuers) and an unencrypted PKCS#8 key
 * ({@code BEGIN PRIVATE KEY}, what {@code openssl genpkey} and {@code openssl req -newkey}
 * write), in two files or together in one (HAProxy's format). Checked when read: a file that
 * cannot be read, holds no certificate or key, or a key that is not the certificate's is an
 * {@link IllegalArgumentException} whose message says which and why.
 */
public final class TlsIdentity {
    /** The in-memory key store's password: it never leaves this process. */
    static final String PASSWORD = "moses";
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");

    private final List<X509Certificate> chain;
    private final KeyStore keyStore;

    private TlsIdentity(List<X509Certificate> chain, KeyStore keyStore) {
        this.chain = List.copyOf(chain);
        this.keyStore = keyStore;
    }

    /**
     * @param cert the PEM certificate chain (it may hold the key too)
     * @param key  the PEM PKCS#8 key, or null when it is in {@code cert}
     */
    public static TlsIdentity load(Path cert, Path key) {
        String certText = read(cert, "--tls-cert");
        String keyText = key == null ? certText : read(key, "--tls-key");
        List<X509Certificate> chain = new ArrayList<>();
        PrivateKey privateKey = null;
        Matcher c = BLOCK.matcher(certText);
        while (c.find()) if (c.group(1).equals("CERTIFICATE")) chain.add(certificate(c.group(2), cert));
        if (chain.isEmpty()) throw new IllegalArgumentException("--tls-cert " + cert + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
        String keyOption = key == null ? "--tls-cert" : "--tls-key";
        Path keyFile = key == null ? cert : key;
        Matcher k = BLOCK.matcher(keyText);
        while (k.find() && privateKey == null) {
            switch (k.group(1)) {
                case "PRIVATE KEY" -> privateKey = privateKey(k.group(2), keyOption, keyFile);
                case "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException(
                        keyOption + " " + keyFile + ": the key is " + k.group(1).toLowerCase() + " PEM; the broker reads unencrypted PKCS#8 "
                                + "(-----BEGIN PRIVATE KEY-----): openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
                default -> { }
            }
        }
        if (privateKey == null) throw new IllegalArgumentException(keyOption + " " + keyFile
                + ": no PEM private key (-----BEGIN PRIVATE KEY-----) in it" + (key == null ? " (or give it with --tls-key)" : ""));
        if (!matches(privateKey, chain.get(0)))
            throw new IllegalArgumentException(keyOption + " " + keyFile + ": the key is not the one of the certificate in --tls-cert " + cert
                    + " (" + chain.get(0).getSubjectX500Principal().getName() + ")");
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("moses", privateKey, PASSWORD.toCharArray(), chain.toArray(new Certificate[0]));
            return new TlsIdentity(chain, ks);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("--tls-cert " + cert + ": cannot hold the key and certificate: " + e.getMessage());
        }
    }

    /** The key and chain, in a key store whose password is {@link #PASSWORD}. */
    KeyStore keyStore() {
        return keyStore;
    }

    /** The certificate chain, the server's first. */
    public List<X509Certificate> chain() {
        return chain;
    }

    /**
     * For this broker's calls to the other replicas: trusts what the JDK trusts, and the
     * certificates of this chain (replicas that share a certificate, or its issuer). Host names
     * are checked as for any HTTPS call: the certificate names the address a replica advertises.
     */
    public javax.net.ssl.SSLContext peerContext() {
        try {
            KeyStore own = KeyStore.getInstance("PKCS12");
            own.load(null, null);
            for (int i = 0; i < chain.size(); i++) own.setCertificateEntry("moses-" + i, chain.get(i));
            javax.net.ssl.X509TrustManager jdk = trustManager(null), ours = trustManager(own);
            javax.net.ssl.X509TrustManager either = new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] c, String authType) throws CertificateException {
                    throw new CertificateException("no client certificates");
                }

                @Override
                public void checkServerTrusted(X509Certificate[] c, String authType) throws CertificateException {
                    try {
                        ours.checkServerTrusted(c, authType);
                    } catch (CertificateException notOurs) {
                        jdk.checkServerTrusted(c, authType);
                    }
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    List<X509Certificate> all = new ArrayList<>(List.of(jdk.getAcceptedIssuers()));
                    all.addAll(chain);
                    return all.toArray(new X509Certificate[0]);
                }
            };
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, new javax.net.ssl.TrustManager[] {either}, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("no TLS client context: " + e.getMessage(), e);
        }
    }

    private static javax.net.ssl.X509TrustManager trustManager(KeyStore trusted) throws GeneralSecurityException {
        javax.net.ssl.TrustManagerFactory f = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        f.init(trusted);
        for (javax.net.ssl.TrustManager m : f.getTrustManagers()) if (m instanceof javax.net.ssl.X509TrustManager x) return x;
        throw new GeneralSecurityException("no X.509 trust manager");
    }

    private static String read(Path file, String option) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException(option + " " + file + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IllegalArgumentException(option + " " + file + ": not readable (permission denied)");
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + file + ": cannot be read: " + e.getMessage());
        }
    }

    private static byte[] base64(String body) {
        return Base64.getMimeDecoder().decode(body.trim());
    }

    private static X509Certificate certificate(String body, Path file) {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(base64(body)));
        } catch (CertificateException | IllegalArgumentException e) {
            throw new IllegalArgumentException("--tls-cert " + file + ": a certificate in it cannot be read: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(String body, String option, Path file) {
        byte[] der;
        try {
            der = base64(body);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + file + ": the private key is not valid base64");
        }
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // the next algorithm
            }
        }
        throw new IllegalArgumentException(option + " " + file + ": the private key is neither RSA, EC nor EdDSA PKCS#8");
    }

    /** Whether the key signs what the certificate's public key verifies. */
    private static boolean matches(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        try {
            byte[] probe = "moses tls key check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] signature = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(probe);
            return v.verify(signature);
        } catch (GeneralSecurityException e) {
            return false; // a key of another algorithm than the certificate's
        }
    }
}
