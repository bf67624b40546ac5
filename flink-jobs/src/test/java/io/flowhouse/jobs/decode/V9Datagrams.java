// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.v9.V9Encoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds NetFlow v9 datagrams with the codec's encoder for the decode tests. */
final class V9Datagrams {

    static final long EXPORT_MILLIS = 1_705_320_000_000L;
    static final long UPTIME_MILLIS = 3_600_000L;

    /** Layout A: IPv4 5-tuple, packets and bytes in 4 octets. */
    static final Template LAYOUT_A =
            Template.of(
                    256,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IPV4_SRC_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.IPV4_DST_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.L4_SRC_PORT, 2),
                            FieldSpecifier.of(V9Encoder.L4_DST_PORT, 2),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 4),
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 4),
                            FieldSpecifier.of(V9Encoder.FIRST_SWITCHED, 4),
                            FieldSpecifier.of(V9Encoder.LAST_SWITCHED, 4)));

    /** Layout B, same id: counters first and 8 octets wide, then ToS and the 5-tuple. */
    static final Template LAYOUT_B =
            Template.of(
                    256,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 8),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 8),
                            FieldSpecifier.of(V9Encoder.SRC_TOS, 1),
                            FieldSpecifier.of(V9Encoder.IPV4_SRC_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.IPV4_DST_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.L4_SRC_PORT, 2),
                            FieldSpecifier.of(V9Encoder.L4_DST_PORT, 2),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.FIRST_SWITCHED, 4),
                            FieldSpecifier.of(V9Encoder.LAST_SWITCHED, 4)));

    private V9Datagrams() {}

    static FlowRecord flow(int i, long packets, long bytes) {
        return FlowRecord.builder()
                .srcAddr(IpAddress.parse("192.0.2." + (1 + i % 200)))
                .dstAddr(IpAddress.parse("198.51.100." + (1 + i % 200)))
                .srcPort(40_000 + i)
                .dstPort(443)
                .protocol(6)
                .tos(0x28)
                .packets(packets)
                .bytes(bytes)
                .flowStartMillis(EXPORT_MILLIS - 10_000)
                .flowEndMillis(EXPORT_MILLIS - 1_000)
                .build();
    }

    static List<FlowRecord> flows(int n, long packets, long bytes) {
        List<FlowRecord> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(flow(i, packets, bytes));
        }
        return l;
    }

    /** A datagram: optional templates, then optional data with {@code layout}. */
    static byte[] payload(
            long sequence,
            long sourceId,
            List<Template> templates,
            Template layout,
            List<FlowRecord> data) {
        ByteBuffer out = ByteBuffer.allocate(65_535);
        V9Encoder.Message m =
                V9Encoder.begin(
                        out,
                        new V9Encoder.Header(EXPORT_MILLIS, UPTIME_MILLIS, sequence, sourceId));
        if (!templates.isEmpty()) {
            m.templates(templates);
        }
        if (layout != null && !data.isEmpty()) {
            m.data(layout, data);
        }
        int len = m.finish();
        return Arrays.copyOf(out.array(), len);
    }

    static RawDatagram datagram(String exporter, int port, long receivedMillis, byte[] payload) {
        return RawDatagram.of(IpAddress.parse(exporter), port, receivedMillis, "test", payload);
    }
}
