// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-side reading of exported IPFIX: a header walk of its own (RFC 7011 §3.1/§3.3: version,
 * length, sequence, domain, set ids and the data records in them) and the codec's decoder for the
 * flows.
 */
final class IpfixMessages {

    /** What one message holds, read from the wire without the codec. */
    record Summary(
            int length,
            long sequence,
            long domain,
            boolean hasTemplates,
            boolean hasOptionsTemplate,
            int dataRecords,
            int optionsRecords) {}

    private IpfixMessages() {}

    /** Walks header and sets; data records counted from the known record lengths. */
    static Summary summarize(byte[] m, int v4Len, int v6Len, int optionsLen) {
        ByteBuffer b = ByteBuffer.wrap(m);
        assertThat(b.getShort(0)).as("version").isEqualTo((short) 10);
        int length = b.getShort(2) & 0xffff;
        assertThat(length).as("header length").isEqualTo(m.length);
        long seq = b.getInt(8) & 0xffff_ffffL;
        long domain = b.getInt(12) & 0xffff_ffffL;
        boolean templates = false;
        boolean options = false;
        int data = 0;
        int opts = 0;
        int pos = 16;
        while (pos < length) {
            int id = b.getShort(pos) & 0xffff;
            int len = b.getShort(pos + 2) & 0xffff;
            assertThat(len).as("set length").isGreaterThanOrEqualTo(4);
            assertThat(pos + len).as("set inside message").isLessThanOrEqualTo(length);
            int body = len - 4;
            switch (id) {
                case 2 -> templates = true;
                case 3 -> options = true;
                case 256 -> data += body / v4Len;
                case 257 -> data += body / v6Len;
                case 258 -> opts += body / optionsLen;
                default -> throw new AssertionError("unexpected set id " + id);
            }
            pos += len;
        }
        return new Summary(length, seq, domain, templates, options, data, opts);
    }

    /** Decodes every datagram with the codec (one template cache, as a collector keeps). */
    static List<FlowRecord> decode(List<UdpTap.Datagram> datagrams) throws DecodeException {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        List<FlowRecord> out = new ArrayList<>();
        for (UdpTap.Datagram d : datagrams) {
            DecodeContext ctx =
                    new DecodeContext(
                            new ExporterKey(
                                    IpAddress.of(d.from().getAddress()), d.from().getPort()),
                            0L);
            DecodeResult r = decoder.decode(ByteBuffer.wrap(d.payload()), ctx, cache);
            assertThat(r.problems()).as("decode problems").isEmpty();
            out.addAll(r.records());
        }
        return out;
    }

    /**
     * The fields an IPFIX re-export carries: exporter, header fields and receive times are those of
     * the new transport session, so they are cleared on both sides.
     */
    static FlowRecord carried(FlowRecord f) {
        return f.toBuilder()
                .version(0)
                .exporterAddress(IpAddress.UNSPECIFIED)
                .exporterPort(0)
                .sequenceNumber(0)
                .recordIndex(0)
                .exportTimeMillis(0)
                .timeReceivedMillis(0)
                .build();
    }

    /** Sequence numbers per domain must advance by the data records of each message. */
    static void assertSequenceContinuity(List<Summary> messages) {
        Map<Long, Long> next = new HashMap<>();
        for (Summary s : messages) {
            Long expected = next.get(s.domain());
            if (expected != null) {
                assertThat(s.sequence())
                        .as("sequence of domain %d", s.domain())
                        .isEqualTo(expected);
            }
            next.put(
                    s.domain(),
                    (s.sequence() + s.dataRecords() + s.optionsRecords()) & 0xffff_ffffL);
        }
    }
}
