// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * How one export protocol lays flows out in a message: sizes for packing, and the writing itself
 * through the codec's encoder. Implementations hold only immutable template definitions; all
 * per-exporter state (sequence numbers, uptime) comes in through {@link MessageContext}.
 */
interface MessageLayout {

    /** Most data records one message may hold whatever their size (v5: 30). */
    int maxRecords();

    /**
     * Bytes a message takes with {@code ipv4} and {@code ipv6} data records, with or without the
     * templates (and sampling options when the exporter samples).
     */
    int size(int ipv4, int ipv6, boolean templates, boolean sampling);

    /**
     * Writes one message at the buffer's position.
     *
     * @return what was written
     */
    Written write(MessageContext ctx, List<FlowRecord> flows, boolean templates, ByteBuffer out);

    /**
     * The sequence number after {@code lost} data records (v5, IPFIX) or one datagram (v9, sFlow)
     * went missing; used to inject gaps.
     */
    long skip(long sequence, int lost);

    /**
     * Header and record values that belong to the exporter rather than the flows.
     *
     * @param exportTimeMillis export time, epoch ms
     * @param bootTimeMillis epoch ms at which the exporter's uptime was 0
     * @param sequence sequence number to put in the header
     * @param domainId observation domain / source id; v5 engine id
     * @param samplingInterval 1-in-N, 1 when unsampled
     * @param firstSample the exporter's index of the message's first flow (sFlow's sample sequence
     *     numbers follow it)
     */
    record MessageContext(
            long exportTimeMillis,
            long bootTimeMillis,
            long sequence,
            long domainId,
            int samplingInterval,
            long firstSample) {}

    /**
     * @param length bytes written
     * @param templateRecords template and options template records written
     * @param optionsRecords options data records written
     * @param nextSequence the sequence number the exporter's next message carries
     */
    record Written(int length, int templateRecords, int optionsRecords, long nextSequence) {}
}
