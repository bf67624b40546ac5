// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;

/**
 * The Kafka record key of topics {@code flows.raw} and {@code flows.rejected}: the {@link
 * ExporterKey} in bytes, so that Kafka's key partitioner keeps one exporter (one template scope,
 * one sequence-number stream) ordered in one partition, and the job can check it against the
 * envelope.
 *
 * <p>Layout, 18 bytes: the address as 16 bytes in network order (IPv4 as IPv4-mapped IPv6 {@code
 * ::ffff:a.b.c.d}), then the port as uint16 big-endian.
 */
public final class ExporterPartitionKey {

    /** Encoded size in bytes. */
    public static final int SIZE = 18;

    private ExporterPartitionKey() {}

    public static byte[] encode(ExporterKey exporter) {
        return encode(exporter.address(), exporter.port());
    }

    /** As {@link #encode(ExporterKey)}, without building the key first (the agent's hot path). */
    public static byte[] encode(IpAddress address, int port) {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port + " (expected: 0..65535)");
        }
        byte[] key = new byte[SIZE];
        writeLong(key, 0, address.hi());
        writeLong(key, 8, address.lo());
        key[16] = (byte) (port >>> 8);
        key[17] = (byte) port;
        return key;
    }

    /**
     * Reads a key.
     *
     * @throws MalformedEnvelopeException if the key is not {@link #SIZE} bytes
     */
    public static ExporterKey decode(byte[] key) {
        if (key == null || key.length != SIZE) {
            throw new MalformedEnvelopeException(
                    "exporter key of "
                            + (key == null ? "null" : key.length + " bytes")
                            + " (expected: "
                            + SIZE
                            + ")");
        }
        IpAddress address = new IpAddress(readLong(key, 0), readLong(key, 8));
        return new ExporterKey(address, ((key[16] & 0xff) << 8) | (key[17] & 0xff));
    }

    /** Whether {@code key} is the encoded form of {@code exporter}, without decoding it. */
    public static boolean matches(byte[] key, ExporterKey exporter) {
        return key != null
                && key.length == SIZE
                && readLong(key, 0) == exporter.address().hi()
                && readLong(key, 8) == exporter.address().lo()
                && (((key[16] & 0xff) << 8) | (key[17] & 0xff)) == exporter.port();
    }

    private static void writeLong(byte[] b, int off, long v) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    private static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }
}
