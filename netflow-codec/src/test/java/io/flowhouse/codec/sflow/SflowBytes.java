// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** Writes sFlow v5 test datagrams, XDR word by word (a test helper, not an encoder). */
final class SflowBytes {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static SflowBytes of() {
        return new SflowBytes();
    }

    /** A datagram header with an IPv4 agent. */
    static SflowBytes header(int agent, long subAgent, long sequence, long uptime, long samples) {
        return of().u32(5).u32(1).u32(agent).u32(subAgent).u32(sequence).u32(uptime).u32(samples);
    }

    SflowBytes u32(long v) {
        out.write((int) (v >>> 24));
        out.write((int) (v >>> 16));
        out.write((int) (v >>> 8));
        out.write((int) v);
        return this;
    }

    SflowBytes u64(long v) {
        return u32(v >>> 32).u32(v);
    }

    SflowBytes bytes(byte[] b) {
        out.write(b, 0, b.length);
        return this;
    }

    /** An element: format, length and body (padded to 4 bytes, as XDR opaque data is). */
    SflowBytes element(int format, SflowBytes body) {
        byte[] b = body.toBytes();
        u32(format).u32(b.length).bytes(b);
        for (int i = b.length; i % 4 != 0; i++) {
            out.write(0);
        }
        return this;
    }

    byte[] toBytes() {
        return out.toByteArray();
    }

    ByteBuffer buffer() {
        return ByteBuffer.wrap(toBytes());
    }
}
