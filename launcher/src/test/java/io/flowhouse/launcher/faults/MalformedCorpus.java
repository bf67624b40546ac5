// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A seeded corpus of malformed NetFlow/IPFIX datagrams, every one of which a collector must count
 * as bad without falling over: truncated messages, lying length and count fields, zero-length sets,
 * templates with huge field counts, random bytes, and valid headers over garbage sets.
 */
final class MalformedCorpus {

    /** What is wrong with a datagram. */
    enum Kind {
        TRUNCATED_V5,
        TRUNCATED_IPFIX,
        LYING_IPFIX_LENGTH,
        LYING_V5_COUNT,
        ZERO_LENGTH_SET,
        HUGE_FIELD_COUNT,
        RANDOM_BYTES,
        IPFIX_GARBAGE_SETS,
        V9_GARBAGE_FLOWSETS
    }

    /** One malformed datagram. */
    record Bad(Kind kind, byte[] payload) {}

    private MalformedCorpus() {}

    /** {@code perKind} datagrams of every {@link Kind}, the same for the same seed. */
    static List<Bad> generate(long seed, int perKind) {
        Random r = new Random(seed);
        List<Bad> out = new ArrayList<>();
        for (int i = 0; i < perKind; i++) {
            byte[] v5 = FaultSupport.v5(2_000_000 + i, 1 + r.nextInt(30));
            out.add(new Bad(Kind.TRUNCATED_V5, Arrays.copyOf(v5, 1 + r.nextInt(v5.length - 1))));
            byte[] ipfix = ipfixWithTemplateAndData(r);
            out.add(
                    new Bad(
                            Kind.TRUNCATED_IPFIX,
                            Arrays.copyOf(ipfix, 1 + r.nextInt(ipfix.length - 1))));
            byte[] lying = ipfixWithTemplateAndData(r);
            int claimed = r.nextBoolean() ? lying.length + 1 + r.nextInt(500) : 16 + r.nextInt(4);
            ByteBuffer.wrap(lying).putShort(2, (short) claimed);
            out.add(new Bad(Kind.LYING_IPFIX_LENGTH, lying));
            byte[] count = FaultSupport.v5(3_000_000 + i, 1);
            ByteBuffer.wrap(count).putShort(2, (short) (2 + r.nextInt(29)));
            out.add(new Bad(Kind.LYING_V5_COUNT, count));
            out.add(new Bad(Kind.ZERO_LENGTH_SET, zeroLengthSet(r)));
            out.add(new Bad(Kind.HUGE_FIELD_COUNT, hugeFieldCount(r)));
            byte[] random = new byte[1 + r.nextInt(1_400)];
            r.nextBytes(random);
            out.add(new Bad(Kind.RANDOM_BYTES, random));
            out.add(new Bad(Kind.IPFIX_GARBAGE_SETS, ipfixGarbageSets(r)));
            out.add(new Bad(Kind.V9_GARBAGE_FLOWSETS, v9GarbageFlowSets(r)));
        }
        return out;
    }

    private static ByteBuffer ipfixHeader(ByteBuffer b, Random r) {
        return b.putShort((short) 10)
                .putShort((short) 0)
                .putInt(1_700_000_000)
                .putInt(r.nextInt(1 << 20))
                .putInt(1 + r.nextInt(1000));
    }

    private static byte[] finish(ByteBuffer b) {
        b.putShort(2, (short) b.position());
        return Arrays.copyOf(b.array(), b.position());
    }

    /** A valid IPFIX message: template 256 (srcIPv4, dstIPv4, octets, packets) and two records. */
    private static byte[] ipfixWithTemplateAndData(Random r) {
        ByteBuffer b = ipfixHeader(ByteBuffer.allocate(256), r);
        b.putShort((short) 2).putShort((short) (4 + 4 + 16));
        b.putShort((short) 256).putShort((short) 4);
        b.putShort((short) 8).putShort((short) 4).putShort((short) 12).putShort((short) 4);
        b.putShort((short) 1).putShort((short) 4).putShort((short) 2).putShort((short) 4);
        b.putShort((short) 256).putShort((short) (4 + 2 * 16));
        for (int i = 0; i < 2; i++) {
            b.putInt(0x0a000001).putInt(0x0a000002).putInt(100 + r.nextInt(1000)).putInt(1);
        }
        return finish(b);
    }

    /** Header fine, then a set whose length is 0 (a decoder that trusts it loops forever). */
    private static byte[] zeroLengthSet(Random r) {
        ByteBuffer b = ipfixHeader(ByteBuffer.allocate(64), r);
        b.putShort((short) (r.nextBoolean() ? 2 : 256 + r.nextInt(100))).putShort((short) 0);
        b.putInt(r.nextInt()).putInt(r.nextInt());
        return finish(b);
    }

    /** A template record announcing 65,535 fields with room for a handful. */
    private static byte[] hugeFieldCount(Random r) {
        ByteBuffer b = ipfixHeader(ByteBuffer.allocate(64), r);
        b.putShort((short) 2).putShort((short) (4 + 4 + 8));
        b.putShort((short) (256 + r.nextInt(1000))).putShort((short) 0xffff);
        b.putShort((short) 8).putShort((short) 4).putShort((short) 12).putShort((short) 4);
        return finish(b);
    }

    /** A valid IPFIX header over sets with reserved ids or data for templates never sent. */
    private static byte[] ipfixGarbageSets(Random r) {
        ByteBuffer b = ipfixHeader(ByteBuffer.allocate(1_200), r);
        int sets = 1 + r.nextInt(4);
        for (int s = 0; s < sets; s++) {
            int body = 4 + r.nextInt(200);
            int id = r.nextBoolean() ? 4 + r.nextInt(250) : 40_000 + r.nextInt(20_000);
            b.putShort((short) id).putShort((short) (4 + body));
            byte[] garbage = new byte[body];
            r.nextBytes(garbage);
            b.put(garbage);
        }
        return finish(b);
    }

    /** A v9 header over a template flowset whose fields run past its end. */
    private static byte[] v9GarbageFlowSets(Random r) {
        ByteBuffer b = ByteBuffer.allocate(128);
        b.putShort((short) 9).putShort((short) 1).putInt(600_000).putInt(1_700_000_000);
        b.putInt(r.nextInt(1 << 20)).putInt(1 + r.nextInt(1000));
        b.putShort((short) 0).putShort((short) (4 + 4 + 8));
        b.putShort((short) (256 + r.nextInt(1000))).putShort((short) (200 + r.nextInt(1000)));
        b.putShort((short) 8).putShort((short) 4).putShort((short) 12).putShort((short) 4);
        return Arrays.copyOf(b.array(), b.position());
    }
}
