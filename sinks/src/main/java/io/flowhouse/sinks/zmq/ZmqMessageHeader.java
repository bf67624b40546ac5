// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.nio.charset.StandardCharsets;

/**
 * Writes ntopng's {@code zmq_msg_hdr_v3} (header version 4), the first frame of every message.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  url[16]: topic, NUL padded ("flow", "event", "template")     |
 * |                              ...                              |
 * +---------------+---------------+-------------------------------+
 * | version (u8)=4| flags (u8)    | padding (2)                   |
 * +---------------+---------------+-------------------------------+
 * | uncompressed_size (u32, little endian)                        |
 * | compressed_size   (u32, little endian)                        |
 * | msg_id            (u32, BIG endian: ntopng ntohl()s it)       |
 * | source_id         (u32, little endian)                        |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>ntopng reads the sizes and source id raw (host order, little endian on x86) and {@code ntohl}s
 * the message id ({@code ZMQCollectorInterface::collect_flows}). For uncompressed payloads both
 * size fields carry the payload length: ntopng sizes its inflate buffer from the second one.
 */
public final class ZmqMessageHeader {

    /** {@code sizeof(struct zmq_msg_hdr_v3)} with natural alignment. */
    public static final int SIZE = 36;

    /** {@code ZMQ_MSG_VERSION}: the v3 struct. */
    public static final int VERSION = 4;

    /** {@code ZMQ_FLAG_IS_TLV}: the payload is nDPI TLV, not JSON. */
    public static final int FLAG_TLV = 2;

    private static final int URL_LEN = 16;

    private ZmqMessageHeader() {}

    /**
     * Fills {@code out[0..36)}.
     *
     * @param topic at most 15 ASCII characters
     * @param payloadSize payload length in bytes
     * @param msgId per-source message counter (uint32)
     * @param sourceId source id (uint32)
     */
    public static void write(
            byte[] out, String topic, int flags, int payloadSize, long msgId, long sourceId) {
        byte[] t = topic.getBytes(StandardCharsets.US_ASCII);
        if (t.length >= URL_LEN) {
            throw new IllegalArgumentException(
                    "topic " + topic + " has " + t.length + " bytes (expected: < 16)");
        }
        java.util.Arrays.fill(out, 0, SIZE, (byte) 0);
        System.arraycopy(t, 0, out, 0, t.length);
        out[16] = (byte) VERSION;
        out[17] = (byte) flags;
        putIntLe(out, 20, payloadSize);
        putIntLe(out, 24, payloadSize);
        out[28] = (byte) (msgId >>> 24);
        out[29] = (byte) (msgId >>> 16);
        out[30] = (byte) (msgId >>> 8);
        out[31] = (byte) msgId;
        putIntLe(out, 32, (int) sourceId);
    }

    private static void putIntLe(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}
