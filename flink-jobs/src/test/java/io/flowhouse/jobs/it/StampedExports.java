// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.v5.V5Encoder;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Export datagrams as exporters send them and as the capture agent stamps them: IPFIX messages that
 * mix IPv4 and IPv6 data sets (as pmacct does) and NetFlow v5, each wrapped in a {@link
 * RawDatagram} with the agent's stamp (one stream per exporter, numbered in order).
 */
final class StampedExports {

    private final String agentId;
    private final long epoch;
    private final Map<ExporterKey, long[]> streams = new HashMap<>();

    StampedExports(String agentId, long epoch) {
        this.agentId = agentId;
        this.epoch = epoch;
    }

    /** The next datagram of {@code exporter}'s stream, received at {@code received}. */
    RawDatagram stamp(ExporterKey exporter, long received, byte[] payload) {
        long[] s = streams.computeIfAbsent(exporter, e -> new long[] {streams.size() + 1, 0});
        return RawDatagram.stamped(
                exporter, received, agentId, payload, new DatagramStamp(epoch, s[0], s[1]++));
    }

    /**
     * One IPFIX message: the templates asked for, then a data set of the IPv6 flows, then one of
     * the IPv4 flows (the IPv6 set first, so a message whose IPv6 template is not known yet has a
     * set that waits before one that decodes).
     */
    static byte[] ipfix(
            IpfixEncoder enc,
            long domain,
            long exportMillis,
            boolean v4Template,
            boolean v6Template,
            List<FlowRecord> v6,
            List<FlowRecord> v4) {
        ByteBuffer out = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = enc.begin(out, domain, exportMillis / 1000);
        if (v4Template) {
            m.template(IpfixEncoder.FLOW_TEMPLATE_IPV4);
        }
        if (v6Template) {
            m.template(IpfixEncoder.FLOW_TEMPLATE_IPV6);
        }
        if (!v6.isEmpty()) {
            m.data(IpfixEncoder.FLOW_TEMPLATE_IPV6_ID);
            for (FlowRecord f : v6) {
                IpfixEncoder.writeFlow(m, IpfixEncoder.FLOW_TEMPLATE_IPV6, f);
            }
        }
        if (!v4.isEmpty()) {
            m.data(IpfixEncoder.FLOW_TEMPLATE_IPV4_ID);
            for (FlowRecord f : v4) {
                IpfixEncoder.writeFlow(m, IpfixEncoder.FLOW_TEMPLATE_IPV4, f);
            }
        }
        int len = m.finish();
        return Arrays.copyOf(out.array(), len);
    }

    /** One NetFlow v5 datagram, its flow sequence number {@code sequence}. */
    static byte[] v5(long sequence, long exportMillis, List<FlowRecord> flows) {
        ByteBuffer out = ByteBuffer.allocate(V5Encoder.size(flows.size()));
        V5Encoder.encode(
                new V5Encoder.Header(exportMillis, 86_400_000L, sequence, 0, 0, 0, 0), flows, out);
        return out.array();
    }

    /** A flow of one second that ends at {@code end}. */
    static FlowRecord flow(String src, String dst, long end, long packets, long bytes) {
        IpAddress s = IpAddress.parse(src);
        return FlowRecord.builder()
                .ipVersion(s.isIpv4() ? 4 : 6)
                .srcAddr(s)
                .dstAddr(IpAddress.parse(dst))
                .srcPort(40_000)
                .dstPort(443)
                .protocol(6)
                .packets(packets)
                .bytes(bytes)
                .inputInterface(1)
                .outputInterface(2)
                .flowStartMillis(end - 1_000)
                .flowEndMillis(end)
                .build();
    }
}
