// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.flow.IpAddress;

/**
 * The Kafka record key of topics {@code flows.raw} and {@code flows.rejected}: the exporter's
 * address and UDP source port, so that Kafka's key partitioner keeps one exporter (one template
 * scope, one sequence-number stream) ordered in one partition.
 *
 * <p>Layout, 18 bytes: the address as 16 bytes in network order (IPv4 as IPv4-mapped IPv6 {@code
 * ::ffff:a.b.c.d}), then the port as uint16 big-endian.
 *
 * @param address exporter address
 * @param port exporter UDP source port (uint16)
 */
public record ExporterPartitionKey(IpAddress address, int port) {

    /** Encoded size in bytes. */
    public static final int SIZE = 18;

    public ExporterPartitionKey {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port + " (expected: 0..65535)");
        }
    }

    public byte[] encode() {
        return encode(address, port);
    }

    public static byte[] encode(IpAddress address, int port) {
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
    public static ExporterPartitionKey decode(byte[] key) {
        if (key == null || key.length != SIZE) {
            throw new MalformedEnvelopeException(
                    "exporter key of "
                            + (key == null ? "null" : key.length + " bytes")
                            + " (expected: "
                            + SIZE
                            + ")");
        }
        IpAddress address = new IpAddress(readLong(key, 0), readLong(key, 8));
        return new ExporterPartitionKey(address, ((key[16] & 0xff) << 8) | (key[17] & 0xff));
    }

    @Override
    public String toString() {
        return address.isIpv4() ? address + ":" + port : "[" + address + "]:" + port;
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
