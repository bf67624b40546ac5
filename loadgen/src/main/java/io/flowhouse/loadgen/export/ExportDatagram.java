// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * One datagram a simulated exporter built, with what it carries so the caller can count exactly.
 *
 * @param exporter index of the exporter that built it
 * @param payload the bytes, position 0 to limit (a read-only view of the exporter's buffer, valid
 *     until its next datagram)
 * @param flows the data records it carries, in wire order (empty when malformed)
 * @param templateRecords template and options template records it carries
 * @param optionsRecords options data records (sampling) it carries
 * @param malformed true if deliberately malformed: counted apart, no decodable record
 * @param packets sum of the flows' packet counters
 * @param bytes sum of the flows' byte counters
 * @param counters the sFlow counter samples it carries, summed
 */
public record ExportDatagram(
        int exporter,
        ByteBuffer payload,
        List<FlowRecord> flows,
        int templateRecords,
        int optionsRecords,
        boolean malformed,
        long packets,
        long bytes,
        CounterTotals counters) {

    /** A datagram without counter samples. */
    public ExportDatagram(
            int exporter,
            ByteBuffer payload,
            List<FlowRecord> flows,
            int templateRecords,
            int optionsRecords,
            boolean malformed,
            long packets,
            long bytes) {
        this(
                exporter,
                payload,
                flows,
                templateRecords,
                optionsRecords,
                malformed,
                packets,
                bytes,
                CounterTotals.NONE);
    }

    public int length() {
        return payload.remaining();
    }

    /** A copy of the payload bytes (for tests and pcap writers that keep them). */
    public byte[] toByteArray() {
        byte[] b = new byte[payload.remaining()];
        payload.duplicate().get(b);
        return b;
    }
}
