package io.moses.model.auth;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A user name and password as an HTTP Basic {@code Authorization} header carries them (RFC 7617,
 * UTF-8). {@link #toString()} never shows the password.
 */
public record BasicCredentials(String user, String password) {
    /** The reason for a header of another scheme. */
    public static final String UNSUPPORTED_SCHEME = "unsupported authentication scheme: use HTTP Basic";
    /** The reason for a Basic header that does not decode to {@code user:password}. */
    public static final String MALFORMED = "malformed HTTP Basic credentials";

    private static final String SCHEME = "Basic ";

    public BasicCredentials {
        if (user == null || user.isEmpty()) throw new IllegalArgumentException("user must not be empty");
        if (user.indexOf(':') >= 0) throw new IllegalArgumentException("user must not contain ':'");
        if (password == null) throw new IllegalArgumentException("password must not be null");
    }

    /**
     * Parses an {@code Authorization} header's value; the scheme's name is case-insensitive, the
     * password may contain ':'.
     *
     * @throws IllegalArgumentException with a reason a caller may be told: another scheme
     *                                  ({@link #UNSUPPORTED_SCHEME}), or {@link #MALFORMED} and what
     *                                  is wrong (not base64, no colon, an empty user name, not UTF-8)
     */
    public static BasicCredentials parse(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length()))
            throw new IllegalArgumentException(UNSUPPORTED_SCHEME);
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(authorization.substring(SCHEME.length()).trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(MALFORMED + ": not base64");
        }
        String decoded;
        try {
            // strict: a wrong byte would otherwise become U+FFFD and name another user
            decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(MALFORMED + ": not UTF-8");
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) throw new IllegalArgumentException(MALFORMED + ": no ':' between user and password");
        if (colon == 0) throw new IllegalArgumentException(MALFORMED + ": empty user name");
        return new BasicCredentials(decoded.substring(0, colon), decoded.substring(colon + 1));
    }

    /** These credentials as an {@code Authorization} header's value. */
    public String header() {
        return SCHEME + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "BasicCredentials[user=" + user + ", password=***]";
    }
}
