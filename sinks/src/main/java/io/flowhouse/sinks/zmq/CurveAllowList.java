// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.zeromq.ZMQ;

/**
 * The CURVE client public keys allowed to subscribe, read from a text file: one key a line, as 40
 * Z85 characters (what {@code zmq_curve_keypair} prints), optionally followed by a name; or a
 * public zcert file ({@code public-key = "..."}). Lines starting with {@code #} are comments unless
 * their first word is a key (Z85 uses {@code #}). The file is read again when its modification time
 * changes, so a key can be added or revoked without a restart; a file that no longer parses keeps
 * the previous list.
 */
public final class CurveAllowList {

    private static final Pattern ZCERT_PUBLIC =
            Pattern.compile("^public-key\\s*=\\s*\"([^\"]{40})\"$");

    /** The other lines of a zcert file: section names and {@code name = "value"} metadata. */
    private static final Pattern ZCERT_OTHER =
            Pattern.compile("^(metadata|curve|[a-z][a-z0-9-]*\\s*=\\s*\"[^\"]*\")$");

    private final Path file;
    private volatile Set<String> keys;
    private volatile FileTime modified;

    private CurveAllowList(Path file, Set<String> keys, FileTime modified) {
        this.file = file;
        this.keys = keys;
        this.modified = modified;
    }

    /**
     * Reads the file.
     *
     * @throws IOException naming the file and line of the first bad key, or when it has none
     */
    public static CurveAllowList load(Path file) throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        return new CurveAllowList(file, parse(file), modified);
    }

    /** The keys in {@code file} as Z85 text; at least one. */
    static Set<String> parse(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            String first = text.isEmpty() ? "" : text.split("\\s+", 2)[0];
            Matcher zcert = ZCERT_PUBLIC.matcher(text);
            String z85;
            if (zcert.matches()) {
                z85 = zcert.group(1);
            } else if (first.length() == ZMQ.Curve.KEY_SIZE_Z85) {
                // Z85 has '#' and '=' in its alphabet: a 40-character first word is a key.
                z85 = first;
            } else if (text.startsWith("secret-key")) {
                throw new IOException(
                        "curve allow-list "
                                + file
                                + " line "
                                + (i + 1)
                                + " is a secret key: list only the clients' public keys");
            } else if (text.isEmpty()
                    || text.startsWith("#")
                    || ZCERT_OTHER.matcher(text).matches()) {
                continue;
            } else {
                throw new IOException(
                        "curve allow-list "
                                + file
                                + " line "
                                + (i + 1)
                                + ": expected a 40-character Z85 public key");
            }
            byte[] key = ZMQ.Curve.z85Decode(z85);
            if (key == null || key.length != ZMQ.Curve.KEY_SIZE) {
                throw new IOException(
                        "curve allow-list "
                                + file
                                + " line "
                                + (i + 1)
                                + ": not a valid Z85 public key");
            }
            keys.add(z85);
        }
        if (keys.isEmpty()) {
            throw new IOException("curve allow-list " + file + " lists no public key");
        }
        return Set.copyOf(keys);
    }

    /** True when the 32-byte public key is on the list (re-reading a changed file first). */
    public boolean allows(byte[] publicKey) {
        if (publicKey == null || publicKey.length != ZMQ.Curve.KEY_SIZE) {
            return false;
        }
        refresh();
        return keys.contains(ZMQ.Curve.z85Encode(publicKey));
    }

    /** How many keys are allowed now. */
    public int size() {
        return keys.size();
    }

    public Path file() {
        return file;
    }

    /**
     * Re-reads the file when its modification time changed.
     *
     * @return an error text when the changed file could not be used (the old list stays), or null
     */
    String refresh() {
        try {
            FileTime now = Files.getLastModifiedTime(file);
            if (now.equals(modified)) {
                return null;
            }
            keys = parse(file);
            modified = now;
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }
}
