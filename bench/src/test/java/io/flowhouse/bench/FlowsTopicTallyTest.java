// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.loadgen.export.ExportDatagram;
import io.flowhouse.loadgen.report.ExporterTotals;
import io.flowhouse.loadgen.report.RunSummary;
import io.flowhouse.schema.v1.Flow;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowsTopicTallyTest {

    /** An exporter on {@code port} that sent one datagram of {@code flows}. */
    private static ExporterTotals exporter(int index, int port, List<FlowRecord> flows) {
        ExporterTotals e = new ExporterTotals(index, "ipfix", 0);
        e.source("127.0.0.1:" + port);
        long packets = flows.stream().mapToLong(FlowRecord::packets).sum();
        long bytes = flows.stream().mapToLong(FlowRecord::bytes).sum();
        e.sent(
                new ExportDatagram(
                        index, ByteBuffer.allocate(64), flows, 0, 0, false, packets, bytes));
        return e;
    }

    private static FlowRecord flow(long packets, long bytes) {
        return FlowRecord.builder().packets(packets).bytes(bytes).build();
    }

    /** The record key: the exporter as 16-byte IPv4-mapped address and 2-byte port. */
    private static byte[] key(int port) {
        byte[] k = new byte[18];
        k[10] = (byte) 0xff;
        k[11] = (byte) 0xff;
        k[12] = 127;
        k[15] = 1;
        k[16] = (byte) (port >>> 8);
        k[17] = (byte) port;
        return k;
    }

    private static byte[] value(int port, long packets, long bytes) {
        return Flow.newBuilder()
                .setExporterAddress(ByteString.copyFrom(key(port), 0, 16))
                .setExporterPort(port)
                .setPackets(packets)
                .setBytes(bytes)
                .build()
                .toByteArray();
    }

    private static RunSummary load(ExporterTotals... exporters) {
        return new RunSummary(
                "127.0.0.1:4739", "flows", 1000, 1, 1_000_000_000L, 0, List.of(exporters));
    }

    @Test
    void exactTotalsPerExporterMatch() {
        RunSummary load =
                load(
                        exporter(0, 40001, List.of(flow(3, 300), flow(5, 700))),
                        exporter(1, 50002, List.of(flow(1, 64))));
        FlowsTopicTally t = new FlowsTopicTally();
        t.add(key(40001), value(40001, 3, 300));
        t.add(key(50002), value(50002, 1, 64));
        t.add(key(40001), value(40001, 5, 700));
        t.add(key(61000), value(61000, 9, 900)); // an earlier step's exporter: not this step's

        assertThat(FlowsTopicTally.ports(load)).containsExactly(40001, 50002);
        assertThat(t.flows(FlowsTopicTally.ports(load))).isEqualTo(3);
        assertThat(t.mismatchedExporters(load)).isZero();
        assertThat(t.undecodable()).isZero();
    }

    @Test
    void aDuplicateOrAnAlteredCounterIsAMismatchEvenWhenTheFlowCountHolds() {
        RunSummary load =
                load(
                        exporter(0, 40001, List.of(flow(3, 300), flow(5, 700))),
                        exporter(1, 50002, List.of(flow(1, 64))));
        FlowsTopicTally t = new FlowsTopicTally();
        t.add(key(40001), value(40001, 3, 300));
        t.add(key(40001), value(40001, 3, 300)); // duplicate instead of the second flow
        t.add(key(50002), value(50002, 1, 65)); // one byte more

        assertThat(t.flows(FlowsTopicTally.ports(load))).isEqualTo(3);
        assertThat(t.mismatchedExporters(load)).isEqualTo(2);
    }

    @Test
    void aMissingExporterAndAnUnreadableRecordAreCounted() {
        RunSummary load = load(exporter(0, 40001, List.of(flow(3, 300))));
        FlowsTopicTally t = new FlowsTopicTally();
        t.add(key(40001), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});

        assertThat(t.undecodable()).isEqualTo(1);
        assertThat(t.flows(FlowsTopicTally.ports(load))).isZero();
        assertThat(t.mismatchedExporters(load)).isEqualTo(1);
    }

    @Test
    void aRecordWithoutTheExporterKeyIsCountedByItsExporterPort() {
        RunSummary load = load(exporter(0, 40001, List.of(flow(2, 20))));
        FlowsTopicTally t = new FlowsTopicTally();
        t.add(null, value(40001, 2, 20));

        assertThat(t.mismatchedExporters(load)).isZero();
        assertThat(FlowsTopicTally.port("[::1]:7")).isEqualTo(7);
        assertThat(FlowsTopicTally.port("nowhere")).isEqualTo(-1);
    }
}
