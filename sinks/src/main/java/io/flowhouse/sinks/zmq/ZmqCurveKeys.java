// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.zeromq.ZMQ;

/**
 * Reads CURVE keys from files: either the bare 40-character Z85 text (what ntopng prints and {@code
 * nprobe --zmq-encryption-key} takes) or a ZeroMQ zcert file ({@code public-key = "..."} / {@code
 * secret-key = "..."}, as written by {@code zmq_cert_save}).
 */
public final class ZmqCurveKeys {

    private static final Pattern ZCERT =
            Pattern.compile("(public|secret)-key\\s*=\\s*\"([^\"]{40})\"");

    private ZmqCurveKeys() {}

    /** The 32-byte public key in {@code file}. */
    public static byte[] readPublic(Path file) throws IOException {
        return read(file, "public");
    }

    /** The 32-byte secret key in {@code file}. */
    public static byte[] readSecret(Path file) throws IOException {
        return read(file, "secret");
    }

    private static byte[] read(Path file, String which) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        String z85 = null;
        Matcher m = ZCERT.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(which)) {
                z85 = m.group(2);
            }
        }
        if (z85 == null) {
            z85 = text.strip();
        }
        if (z85.length() != ZMQ.Curve.KEY_SIZE_Z85) {
            throw new IOException(
                    "curve "
                            + which
                            + " key in "
                            + file
                            + " has "
                            + z85.length()
                            + " characters (expected: 40 Z85 characters or a zcert file)");
        }
        byte[] key = ZMQ.Curve.z85Decode(z85);
        if (key == null || key.length != ZMQ.Curve.KEY_SIZE) {
            throw new IOException("curve " + which + " key in " + file + " is not valid Z85");
        }
        return key;
    }
}
