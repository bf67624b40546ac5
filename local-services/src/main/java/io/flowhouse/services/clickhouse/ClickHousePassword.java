// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.clickhouse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The generated password of the local ClickHouse's {@code default} user: 24 random bytes,
 * base64url, in a file readable by its owner only (0600) under the state directory. The server gets
 * only its SHA-256 ({@code password_sha256_hex} in users.xml); the launcher, the job ({@code
 * flowhouse.clickhouse.password-file}) and {@code ./flowhouse query} read the file. The password is
 * never put on a command line and never logged.
 */
public final class ClickHousePassword {

    /** The file name under the state directory. */
    public static final String FILE_NAME = "clickhouse.password";

    private static final Set<PosixFilePermission> OWNER_ONLY =
            PosixFilePermissions.fromString("rw-------");

    private ClickHousePassword() {}

    /**
     * Reads the password from {@code file}, generating it first if the file does not exist; a file
     * that others can read is narrowed to 0600.
     */
    public static String ensure(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            Files.createDirectories(file.toAbsolutePath().getParent());
            try {
                // Created 0600 in one step: the password is never readable by others, not even
                // for a moment.
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                Files.writeString(file, password + "\n", StandardCharsets.US_ASCII);
                return password;
            } catch (FileAlreadyExistsException raced) {
                // Another launcher made it first: read theirs.
            }
        }
        if (!Files.getPosixFilePermissions(file).equals(OWNER_ONLY)) {
            Files.setPosixFilePermissions(file, OWNER_ONLY);
        }
        return read(file);
    }

    /** The password in {@code file} (first line, trimmed). */
    public static String read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        if (text.isEmpty()) {
            throw new IOException("clickhouse password file " + file + " is empty");
        }
        return text;
    }

    /** Lower-case hex SHA-256 of the password, for {@code password_sha256_hex}. */
    public static String sha256Hex(String password) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /**
     * HTTP headers that log in as {@code default} with the password in {@code file}; none when the
     * file does not exist (a server from before passwords, or not started yet).
     */
    public static Map<String, String> headersFor(Path file) {
        if (!Files.exists(file)) {
            return Map.of();
        }
        try {
            return basicAuth("default", read(file));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + file, e);
        }
    }

    /** HTTP Basic authentication of {@code user} (every ClickHouse version takes it). */
    public static Map<String, String> basicAuth(String user, String password) {
        String token =
                Base64.getEncoder()
                        .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return Map.of("Authorization", "Basic " + token);
    }
}
