// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The Kafka record key of an sFlow v5 datagram on {@code flows.raw}: the agent address and
 * sub-agent id from the datagram's header, not the UDP sender. sFlow's sequence numbers are per
 * agent and sub-agent, so these keep one sequence stream in one partition, whichever socket or NAT
 * the datagrams came through.
 *
 * <p>Layout, 20 bytes (two more than {@link ExporterPartitionKey}, so the two never read as each
 * other): the agent address as 16 bytes in network order (IPv4 as IPv4-mapped IPv6, the address
 * type "unknown" as 16 zero bytes), then the sub-agent id as uint32 big-endian.
 *
 * @param agent the agent address ({@link IpAddress#UNSPECIFIED} when the type is unknown)
 * @param subAgentId the sub-agent id (uint32)
 */
public record SflowAgentKey(IpAddress agent, long subAgentId) {

    /** Encoded size in bytes. */
    public static final int SIZE = 20;

    public SflowAgentKey {
        if (agent == null) {
            throw new IllegalArgumentException("agent is null");
        }
        if (subAgentId < 0 || subAgentId > 0xffff_ffffL) {
            throw new IllegalArgumentException(
                    "sub-agent id " + subAgentId + " (expected: 0..4294967295)");
        }
    }

    /**
     * The encoded key of the sFlow v5 datagram between {@code d}'s position and limit, read at
     * absolute positions (the buffer is not changed). The header must have passed {@code
     * HeaderCheck} as sFlow v5.
     *
     * @throws IllegalArgumentException if the header is not a checked sFlow v5 header
     */
    public static byte[] encodeFromHeader(ByteBuffer d) {
        int start = d.position();
        int type = d.limit() - start >= 8 && d.getInt(start) == 5 ? d.getInt(start + 4) : -1;
        int length = type == 1 ? 4 : type == 2 ? 16 : type == 0 ? 0 : -1;
        if (length < 0 || d.limit() - start < 8 + length + 4) {
            throw new IllegalArgumentException("not a checked sFlow v5 header");
        }
        byte[] key = new byte[SIZE];
        if (type == 1) {
            key[10] = (byte) 0xff;
            key[11] = (byte) 0xff;
        }
        d.get(start + 8, key, 16 - length, length);
        d.get(start + 8 + length, key, 16, 4);
        return key;
    }

    /**
     * Whether {@code key} is the key of the sFlow v5 datagram {@code payload} (its agent address
     * and sub-agent id), without decoding either: what a reader of {@code flows.raw} checks.
     */
    public static boolean matches(byte[] key, byte[] payload) {
        if (key == null || key.length != SIZE || payload == null) {
            return false;
        }
        try {
            return Arrays.equals(key, encodeFromHeader(ByteBuffer.wrap(payload)));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    public byte[] encode() {
        byte[] key = new byte[SIZE];
        long hi = agent.hi();
        long lo = agent.lo();
        for (int i = 0; i < 8; i++) {
            key[i] = (byte) (hi >>> (56 - 8 * i));
            key[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            key[16 + i] = (byte) (subAgentId >>> (24 - 8 * i));
        }
        return key;
    }

    /**
     * Reads a key.
     *
     * @throws MalformedEnvelopeException if the key is not {@link #SIZE} bytes
     */
    public static SflowAgentKey decode(byte[] key) {
        if (key == null || key.length != SIZE) {
            throw new MalformedEnvelopeException(
                    "sFlow agent key of "
                            + (key == null ? "null" : key.length + " bytes")
                            + " (expected: "
                            + SIZE
                            + ")");
        }
        long hi = 0;
        long lo = 0;
        long sub = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (key[i] & 0xff);
            lo = (lo << 8) | (key[8 + i] & 0xff);
        }
        for (int i = 16; i < SIZE; i++) {
            sub = (sub << 8) | (key[i] & 0xff);
        }
        return new SflowAgentKey(new IpAddress(hi, lo), sub);
    }

    /** {@code agent/subAgentId}, as the decode command and logs print it. */
    @Override
    public String toString() {
        return agent + "/" + subAgentId;
    }
}
