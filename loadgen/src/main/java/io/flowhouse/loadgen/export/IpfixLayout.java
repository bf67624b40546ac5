// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * IPFIX (RFC 7011) through the codec's {@link IpfixEncoder}: its IPv4 and IPv6 flow templates with
 * absolute millisecond times, and, when sampling, its PSAMP options template (selectorId scope,
 * samplingPacketInterval/Space, samplingInterval) with one options record. The sequence number
 * counts data records, options records included (RFC 7011 §3.1). One instance per exporter: the
 * encoder keeps that exporter's sequence number.
 */
final class IpfixLayout implements MessageLayout {

    private static final int HEADER_SIZE = 16;
    private static final int SET_HEADER_SIZE = 4;

    /** Selector id the sampling options record announces. */
    static final long SELECTOR_ID = 1;

    private static final int IPV4_RECORD =
            IpfixEncoder.recordLength(IpfixEncoder.FLOW_TEMPLATE_IPV4);
    private static final int IPV6_RECORD =
            IpfixEncoder.recordLength(IpfixEncoder.FLOW_TEMPLATE_IPV6);
    private static final int TEMPLATE_SET =
            SET_HEADER_SIZE
                    + IpfixEncoder.templateRecordLength(IpfixEncoder.FLOW_TEMPLATE_IPV4)
                    + IpfixEncoder.templateRecordLength(IpfixEncoder.FLOW_TEMPLATE_IPV6);
    private static final int SAMPLING_SETS =
            SET_HEADER_SIZE
                    + IpfixEncoder.templateRecordLength(IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE)
                    + SET_HEADER_SIZE
                    + IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE.minRecordLength();

    private final IpfixEncoder encoder = new IpfixEncoder();

    @Override
    public int maxRecords() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int size(int ipv4, int ipv6, boolean templates, boolean sampling) {
        int size = HEADER_SIZE;
        if (templates) {
            size += TEMPLATE_SET + (sampling ? SAMPLING_SETS : 0);
        }
        if (ipv4 > 0) {
            size += SET_HEADER_SIZE + ipv4 * IPV4_RECORD;
        }
        if (ipv6 > 0) {
            size += SET_HEADER_SIZE + ipv6 * IPV6_RECORD;
        }
        return size;
    }

    @Override
    public Written write(
            MessageContext ctx, List<FlowRecord> flows, boolean templates, ByteBuffer out) {
        long domain = ctx.domainId();
        encoder.sequenceNumber(domain, ctx.sequence());
        IpfixEncoder.Message m =
                encoder.begin(out, domain, Math.floorDiv(ctx.exportTimeMillis(), 1000L));
        int templateRecords = 0;
        int optionsRecords = 0;
        if (templates) {
            m.template(IpfixEncoder.FLOW_TEMPLATE_IPV4).template(IpfixEncoder.FLOW_TEMPLATE_IPV6);
            templateRecords += 2;
            if (ctx.samplingInterval() > 1) {
                long interval = ctx.samplingInterval();
                m.template(IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE);
                m.data(IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE_ID)
                        .u64(SELECTOR_ID)
                        .u32(1)
                        .u32(interval - 1)
                        .u32(interval)
                        .endRecord();
                templateRecords += 1;
                optionsRecords += 1;
            }
        }
        // Callers pass IPv4 flows first, so each family lands in one data set.
        for (FlowRecord r : flows) {
            Template t = IpfixEncoder.templateFor(r);
            m.data(t.templateId());
            IpfixEncoder.writeFlow(m, t, r);
        }
        int length = m.finish();
        return new Written(length, templateRecords, optionsRecords, encoder.sequenceNumber(domain));
    }

    @Override
    public long skip(long sequence, int lost) {
        return (sequence + lost) & 0xffff_ffffL;
    }
}
