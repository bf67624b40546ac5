// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.CaptureMutator;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.counters.InterfaceCountersRowEncoder;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.rollup.FlowSplitter;
import io.flowhouse.jobs.rollup.RollupRow;
import io.flowhouse.jobs.rollup.RollupRowEncoder;
import io.flowhouse.jobs.serde.ArchivedTemplateRecords;
import io.flowhouse.jobs.serde.RejectedDatagramSerializationSchema;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.stats.ExporterStatsRowEncoder;
import io.flowhouse.jobs.tables.FlowRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Queue;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutations of the real captures ({@link CaptureMutator}, the fault suite's seed) through
 * what the job runs on a datagram, in process: the decode operator and the exporter statistics
 * (state snapshotted as checkpoints do), then every output through its table's row encoder (legacy
 * and modern servers), the rollup splitter and the Kafka records of the dead letters and the
 * template archive. Nothing may throw: a datagram the codec cannot take is a counted problem or a
 * dead letter, never an exception. {@code -Dflowhouse.mutations=N} sets the count.
 */
class MutatedCapturesOperatorsTest {

    private static final long MUTATIONS =
            Long.parseLong(System.getProperty("flowhouse.mutations", "5000"));
    private static final long T0 = 1_705_320_000_000L;
    private static final IpAddress ATTACKER = IpAddress.parse("192.0.2.66");
    private static final List<ServerCapabilities> SERVERS =
            List.of(ServerCapabilities.legacy("18.16.1"), ServerCapabilities.modern("24.8.1"));

    @Test
    void nothingTheJobRunsOnAMutatedDatagramThrows() throws Exception {
        CaptureMutator mutator = new CaptureMutator(0x0ddba11L);
        DecodeAndStatsHarness h = new DecodeAndStatsHarness(DecodeSettings.defaults());
        Outputs out = new Outputs();
        try {
            h.setProcessingTime(T0);
            for (long i = 0; i < MUTATIONS; i++) {
                long received = T0 + i / 5;
                byte[] payload = mutator.next();
                RawDatagram d =
                        RawDatagram.of(ATTACKER, 30_000 + (int) (i % 16), received, "mut", payload);
                try {
                    h.processElement1(new StreamRecord<>(d, received));
                    out.drain(h);
                    if (i % 5_000 == 4_999) {
                        h.setProcessingTime(received);
                        h.snapshotDecode();
                    }
                } catch (RuntimeException | Error e) {
                    throw new AssertionError(
                            "datagram "
                                    + i
                                    + " from port "
                                    + d.exporter().port()
                                    + ": "
                                    + HexFormat.of().formatHex(payload),
                            e);
                }
            }
            h.setProcessingTime(T0 + MUTATIONS + 600_000);
            out.drain(h);
            out.stats(h.stats());
        } finally {
            h.close();
        }
        System.out.printf(
                "MUTATED in process: %d datagrams, %d flows, %d pieces, %d dead letters, %d"
                        + " templates archived (largest record %d B), %d stats rows%n",
                MUTATIONS,
                out.flows,
                out.pieces,
                out.rejected,
                out.templates,
                out.largestTemplate,
                out.statsRows);
        assertThat(out.flows + out.rejected).isPositive();
    }

    /** Encodes what the operators emitted, as the sinks would, then drops it. */
    private static final class Outputs {
        final RowBinaryOutput row = new RowBinaryOutput(1 << 16);
        final FlowSplitter splitter = new FlowSplitter(60_000L);
        final RollupRowEncoder<RollupRow> rollups = RollupRowEncoder.rollup("flows_1m");
        final RejectedDatagramSerializationSchema dead =
                new RejectedDatagramSerializationSchema("flows.rejected");
        final ArchivedTemplateRecords archive = new ArchivedTemplateRecords("flows.templates");
        final List<RollupRow> pieceBuffer = new ArrayList<>();
        final Collector<RollupRow> collector =
                new Collector<>() {
                    @Override
                    public void collect(RollupRow r) {
                        pieceBuffer.add(r);
                    }

                    @Override
                    public void close() {}
                };
        long flows;
        long pieces;
        long rejected;
        long templates;
        long largestTemplate;
        long statsRows;

        void drain(DecodeAndStatsHarness h) throws Exception {
            for (FlowRecord f : h.extractOutputValues()) {
                flows++;
                for (ServerCapabilities caps : SERVERS) {
                    row.reset();
                    new FlowRowEncoder().encode(f, row, caps);
                }
                splitter.flatMap(f, collector);
                for (RollupRow r : pieceBuffer) {
                    row.reset();
                    rollups.encode(r, row, SERVERS.get(0));
                }
                pieces += pieceBuffer.size();
                pieceBuffer.clear();
            }
            h.decodeHarness().getOutput().clear();
            Queue<StreamRecord<RejectedDatagram>> r = h.getSideOutput(DecodeOutputs.REJECTED);
            if (r != null) {
                for (StreamRecord<RejectedDatagram> d : r) {
                    rejected++;
                    dead.serialize(d.getValue(), null, null);
                }
                r.clear();
            }
            Queue<StreamRecord<ArchivedTemplate>> t = h.getSideOutput(DecodeOutputs.TEMPLATES);
            if (t != null) {
                for (StreamRecord<ArchivedTemplate> a : t) {
                    templates++;
                    largestTemplate =
                            Math.max(largestTemplate, archive.record(a.getValue()).value().length);
                }
                t.clear();
            }
            var counters = h.getSideOutput(DecodeOutputs.INTERFACE_COUNTERS);
            if (counters != null) {
                InterfaceCountersRowEncoder enc = new InterfaceCountersRowEncoder();
                for (var c : counters) {
                    for (ServerCapabilities caps : SERVERS) {
                        row.reset();
                        enc.encode(c.getValue(), row, caps);
                    }
                }
                counters.clear();
            }
        }

        void stats(List<ExporterStats> all) {
            ExporterStatsRowEncoder enc = new ExporterStatsRowEncoder();
            for (ExporterStats s : all) {
                statsRows++;
                for (ServerCapabilities caps : SERVERS) {
                    row.reset();
                    enc.encode(s, row, caps);
                }
            }
        }
    }
}
