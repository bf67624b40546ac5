// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import static io.flowhouse.codec.v9.V9Encoder.DIRECTION;
import static io.flowhouse.codec.v9.V9Encoder.DST_AS;
import static io.flowhouse.codec.v9.V9Encoder.DST_MASK;
import static io.flowhouse.codec.v9.V9Encoder.FIRST_SWITCHED;
import static io.flowhouse.codec.v9.V9Encoder.INPUT_SNMP;
import static io.flowhouse.codec.v9.V9Encoder.IN_BYTES;
import static io.flowhouse.codec.v9.V9Encoder.IN_PKTS;
import static io.flowhouse.codec.v9.V9Encoder.IPV4_DST_ADDR;
import static io.flowhouse.codec.v9.V9Encoder.IPV4_NEXT_HOP;
import static io.flowhouse.codec.v9.V9Encoder.IPV4_SRC_ADDR;
import static io.flowhouse.codec.v9.V9Encoder.IPV6_DST_ADDR;
import static io.flowhouse.codec.v9.V9Encoder.IPV6_DST_MASK;
import static io.flowhouse.codec.v9.V9Encoder.IPV6_NEXT_HOP;
import static io.flowhouse.codec.v9.V9Encoder.IPV6_SRC_ADDR;
import static io.flowhouse.codec.v9.V9Encoder.IPV6_SRC_MASK;
import static io.flowhouse.codec.v9.V9Encoder.L4_DST_PORT;
import static io.flowhouse.codec.v9.V9Encoder.L4_SRC_PORT;
import static io.flowhouse.codec.v9.V9Encoder.LAST_SWITCHED;
import static io.flowhouse.codec.v9.V9Encoder.OUTPUT_SNMP;
import static io.flowhouse.codec.v9.V9Encoder.PROTOCOL;
import static io.flowhouse.codec.v9.V9Encoder.SAMPLING_ALGORITHM;
import static io.flowhouse.codec.v9.V9Encoder.SAMPLING_INTERVAL;
import static io.flowhouse.codec.v9.V9Encoder.SCOPE_SYSTEM;
import static io.flowhouse.codec.v9.V9Encoder.SRC_AS;
import static io.flowhouse.codec.v9.V9Encoder.SRC_MASK;
import static io.flowhouse.codec.v9.V9Encoder.SRC_TOS;
import static io.flowhouse.codec.v9.V9Encoder.TCP_FLAGS;
import static io.flowhouse.codec.v9.V9Encoder.dataFlowSetSize;
import static io.flowhouse.codec.v9.V9Encoder.flowSetSize;
import static io.flowhouse.codec.v9.V9Encoder.recordLength;
import static io.flowhouse.codec.v9.V9Encoder.templateLength;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.v9.V9Encoder;
import io.flowhouse.codec.v9.V9Encoder.Header;
import io.flowhouse.codec.v9.V9Encoder.Message;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * NetFlow v9 as a Cisco-style exporter sends it: an IPv4 template (256) and an IPv6 template (257)
 * with 32-bit counters and sysUptime-relative times, and, when sampling, an options template (258,
 * scope System) with SAMPLING_INTERVAL and SAMPLING_ALGORITHM and its options record. The sequence
 * number counts export packets (RFC 3954 §5.1).
 */
final class V9Layout implements MessageLayout {

    static final int IPV4_TEMPLATE_ID = 256;
    static final int IPV6_TEMPLATE_ID = 257;
    static final int SAMPLING_OPTIONS_TEMPLATE_ID = 258;

    /** Sampling algorithm 1: deterministic 1-in-N (RFC 3954 §8, SAMPLING_ALGORITHM). */
    static final int ALGORITHM_DETERMINISTIC = 1;

    static final Template IPV4 =
            Template.of(
                    IPV4_TEMPLATE_ID,
                    fields(
                            IPV4_SRC_ADDR,
                            4,
                            IPV4_DST_ADDR,
                            4,
                            IPV4_NEXT_HOP,
                            4,
                            L4_SRC_PORT,
                            2,
                            L4_DST_PORT,
                            2,
                            PROTOCOL,
                            1,
                            TCP_FLAGS,
                            1,
                            SRC_TOS,
                            1,
                            IN_BYTES,
                            4,
                            IN_PKTS,
                            4,
                            INPUT_SNMP,
                            4,
                            OUTPUT_SNMP,
                            4,
                            SRC_AS,
                            4,
                            DST_AS,
                            4,
                            SRC_MASK,
                            1,
                            DST_MASK,
                            1,
                            FIRST_SWITCHED,
                            4,
                            LAST_SWITCHED,
                            4,
                            DIRECTION,
                            1));

    static final Template IPV6 =
            Template.of(
                    IPV6_TEMPLATE_ID,
                    fields(
                            IPV6_SRC_ADDR,
                            16,
                            IPV6_DST_ADDR,
                            16,
                            IPV6_NEXT_HOP,
                            16,
                            L4_SRC_PORT,
                            2,
                            L4_DST_PORT,
                            2,
                            PROTOCOL,
                            1,
                            TCP_FLAGS,
                            1,
                            SRC_TOS,
                            1,
                            IN_BYTES,
                            4,
                            IN_PKTS,
                            4,
                            INPUT_SNMP,
                            4,
                            OUTPUT_SNMP,
                            4,
                            SRC_AS,
                            4,
                            DST_AS,
                            4,
                            IPV6_SRC_MASK,
                            1,
                            IPV6_DST_MASK,
                            1,
                            FIRST_SWITCHED,
                            4,
                            LAST_SWITCHED,
                            4,
                            DIRECTION,
                            1));

    static final Template SAMPLING =
            new Template(
                    SAMPLING_OPTIONS_TEMPLATE_ID,
                    fields(SCOPE_SYSTEM, 4, SAMPLING_INTERVAL, 4, SAMPLING_ALGORITHM, 1),
                    1);

    @Override
    public int maxRecords() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int size(int ipv4, int ipv6, boolean templates, boolean sampling) {
        int size = V9Encoder.HEADER_SIZE;
        if (templates) {
            size += flowSetSize(templateLength(IPV4) + templateLength(IPV6));
            if (sampling) {
                size += flowSetSize(templateLength(SAMPLING));
                size += flowSetSize(recordLength(SAMPLING));
            }
        }
        if (ipv4 > 0) {
            size += dataFlowSetSize(IPV4, ipv4);
        }
        if (ipv6 > 0) {
            size += dataFlowSetSize(IPV6, ipv6);
        }
        return size;
    }

    @Override
    public Written write(
            MessageContext ctx, List<FlowRecord> flows, boolean templates, ByteBuffer out) {
        long exportMillis = ctx.exportTimeMillis();
        // Uptime as the header will let a collector rebuild the boot time from whole seconds.
        long uptime = Math.floorDiv(exportMillis, 1000L) * 1000L - ctx.bootTimeMillis();
        Message m =
                V9Encoder.begin(
                        out, new Header(exportMillis, uptime, ctx.sequence(), ctx.domainId()));
        int templateRecords = 0;
        int optionsRecords = 0;
        boolean sampling = ctx.samplingInterval() > 1;
        if (templates) {
            m.templates(List.of(IPV4, IPV6));
            templateRecords += 2;
            if (sampling) {
                m.optionsTemplates(List.of(SAMPLING));
                m.optionsData(
                        SAMPLING,
                        List.<long[]>of(
                                new long[] {
                                    ctx.domainId(), ctx.samplingInterval(), ALGORITHM_DETERMINISTIC
                                }));
                templateRecords += 1;
                optionsRecords += 1;
            }
        }
        List<FlowRecord> v4 = new ArrayList<>(flows.size());
        List<FlowRecord> v6 = new ArrayList<>();
        for (FlowRecord f : flows) {
            (f.ipVersion() == 6 ? v6 : v4).add(f);
        }
        if (!v4.isEmpty()) {
            m.data(IPV4, v4);
        }
        if (!v6.isEmpty()) {
            m.data(IPV6, v6);
        }
        return new Written(m.finish(), templateRecords, optionsRecords, skip(ctx.sequence(), 1));
    }

    @Override
    public long skip(long sequence, int lost) {
        return (sequence + 1) & 0xffff_ffffL;
    }

    private static List<FieldSpecifier> fields(int... typeAndLength) {
        List<FieldSpecifier> out = new ArrayList<>(typeAndLength.length / 2);
        for (int i = 0; i < typeAndLength.length; i += 2) {
            out.add(FieldSpecifier.of(typeAndLength[i], typeAndLength[i + 1]));
        }
        return out;
    }
}
