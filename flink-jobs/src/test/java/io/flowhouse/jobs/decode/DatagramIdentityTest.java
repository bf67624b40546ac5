// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.EXPORT_MILLIS;
import static io.flowhouse.jobs.decode.V9Datagrams.LAYOUT_A;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static io.flowhouse.jobs.decode.V9Datagrams.payload;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.config.DedupSettings;
import io.flowhouse.jobs.config.EventTimeSettings;
import io.flowhouse.jobs.config.EventTimeSettings.OutOfRange;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.tables.RowIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A datagram's identity through the decode step: re-sends of a stamped datagram count once (and are
 * neither a sequence reset nor a gap), an exporter that restarts on the same port keeps every flow
 * apart, and a flow's time stays in the window around its receive time.
 */
class DatagramIdentityTest {

    private static final ExporterKey R1 = new ExporterKey(IpAddress.parse("192.0.2.200"), 2055);
    private static final long T = EXPORT_MILLIS;

    private DecodeAndStatsHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private void open(DecodeSettings settings) throws Exception {
        harness = new DecodeAndStatsHarness(settings);
        harness.setProcessingTime(1_000L);
    }

    private static RawDatagram stamped(
            String agent, long epoch, long stream, long seq, long received, byte[] payload) {
        return RawDatagram.stamped(
                R1, received, agent, payload, new DatagramStamp(epoch, stream, seq));
    }

    private void send(RawDatagram d) throws Exception {
        harness.processElement1(new StreamRecord<>(d));
    }

    private List<RejectedDatagram> rejected() {
        var q = harness.getSideOutput(DecodeOutputs.REJECTED);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private ExporterStats lastStats() throws Exception {
        harness.setProcessingTime(10 * AggregateExporterStats.STATS_INTERVAL_MILLIS);
        List<ExporterStats> all = harness.stats();
        return all.get(all.size() - 1);
    }

    @Test
    void reSentDatagramsCountOnceAndAreNeitherResetsNorGaps() throws Exception {
        open(DecodeSettings.defaults());
        List<RawDatagram> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            byte[] p =
                    payload(
                            100 + i,
                            0,
                            i == 0 ? List.of(LAYOUT_A) : List.of(),
                            LAYOUT_A,
                            flows(2, 1, 100));
            sent.add(stamped("edge", 7, 1, i, T + i, p));
        }
        for (RawDatagram d : sent.subList(0, 4)) {
            send(d);
        }
        // The spool sends 2 and 3 again (their acknowledgement was lost), then goes on.
        send(sent.get(2));
        send(sent.get(3));
        send(sent.get(4));
        send(sent.get(5));
        send(sent.get(0)); // and once more, much later
        List<FlowRecord> out = harness.extractOutputValues();
        assertThat(out).hasSize(12);
        assertThat(out.stream().map(RowIds::of).distinct()).hasSize(12);
        assertThat(harness.observations())
                .filteredOn(o -> o.kind() == DatagramObservation.Kind.DUPLICATE)
                .hasSize(3)
                .allSatisfy(
                        o -> {
                            assertThat(o.version()).isEqualTo(9);
                            assertThat(o.records()).isZero();
                        });
        ExporterStats s = lastStats();
        assertThat(s.datagrams()).isEqualTo(6);
        assertThat(s.records()).isEqualTo(12);
        assertThat(s.duplicateDatagrams()).isEqualTo(3);
        assertThat(s.sequenceResets()).isZero();
        assertThat(s.sequenceGaps()).isZero();
        assertThat(s.templateRecords()).isEqualTo(1);
    }

    @Test
    void anExporterRestartOnTheSamePortKeepsBothIncarnationsApart() throws Exception {
        open(DecodeSettings.defaults());
        // Same exporter, same port, same exporter sequence numbers and record positions, in the
        // same minute: only the agent's stamp tells the two incarnations' datagrams apart.
        for (int i = 0; i < 3; i++) {
            send(
                    stamped(
                            "edge",
                            7,
                            1,
                            i,
                            T + i,
                            payload(i, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 1, 1))));
        }
        for (int i = 0; i < 3; i++) {
            send(
                    stamped(
                            "edge",
                            7,
                            1,
                            3 + i,
                            T + 10 + i,
                            payload(i, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 1, 1))));
        }
        List<FlowRecord> out = harness.extractOutputValues();
        assertThat(out).hasSize(18);
        Set<String> ids = new HashSet<>();
        for (FlowRecord f : out) {
            ids.add(RowIds.of(f) + "/" + RowIds.high(f));
        }
        assertThat(ids).hasSize(18);
        // Without the stamp (an old agent) the two incarnations collide: the flaw the stamp fixes.
        Set<Long> unstamped = new HashSet<>();
        for (FlowRecord f : out) {
            unstamped.add(RowIds.of(f.toBuilder().stream(0L, 0L).build()));
        }
        assertThat(unstamped).hasSize(9);
        assertThat(lastStats().sequenceResets()).isEqualTo(1);
    }

    @Test
    void aRestartedAgentsSpoolIsCheckedAgainstItsOldStreamAndTheNewStreamIsNew() throws Exception {
        open(DecodeSettings.defaults());
        byte[] template = payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1));
        send(stamped("edge", 7, 1, 0, T, template));
        send(stamped("edge", 7, 1, 1, T + 1, payload(1, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        // The agent died; its next run (epoch 8) first drains the spool (epoch 7, #1 again and #2)
        // and then stamps anew, with stream number 1 again: another stream all the same.
        send(stamped("edge", 7, 1, 1, T + 1, payload(1, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        send(stamped("edge", 7, 1, 2, T + 2, payload(2, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        send(stamped("edge", 8, 1, 0, T + 3, payload(3, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        send(stamped("edge", 8, 1, 1, T + 4, payload(4, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        // A second agent hears the same exporter (a redundant pair): its own streams, not checked
        // against the first agent's (each agent's copy counts; run one agent per exporter).
        send(stamped("edge-b", 8, 1, 0, T + 5, payload(5, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        assertThat(harness.extractOutputValues()).hasSize(6);
        ExporterStats s = lastStats();
        assertThat(s.duplicateDatagrams()).isEqualTo(1);
        assertThat(s.sequenceGaps()).isZero();
        assertThat(s.sequenceResets()).isZero();
    }

    @Test
    void streamsPerExporterAreBoundedLeastRecentFirst() throws Exception {
        open(DecodeSettings.defaults().withDedup(new DedupSettings(2, 4)));
        byte[] p = payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1));
        send(stamped("edge", 1, 1, 0, T, p)); // stream A
        send(stamped("edge", 2, 1, 0, T + 1, p)); // stream B
        send(stamped("edge", 3, 1, 0, T + 2, p)); // stream C: A (least recent) is forgotten
        send(stamped("edge", 2, 1, 0, T + 3, p)); // B's re-send: still caught
        send(stamped("edge", 1, 1, 0, T + 4, p)); // A's re-send: A was forgotten, taken again
        assertThat(harness.extractOutputValues()).hasSize(4);
        assertThat(lastStats().duplicateDatagrams()).isEqualTo(1);
    }

    @Test
    void unstampedDatagramsAreNeverDropped() throws Exception {
        open(DecodeSettings.defaults());
        byte[] p = payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1));
        RawDatagram d = RawDatagram.of(R1, T, "old-agent", p);
        send(d);
        send(d);
        assertThat(harness.extractOutputValues()).hasSize(2);
    }

    @Test
    void aFutureOrAncientFlowIsClampedAroundItsReceiveTimeAndKeepsTheExportersTimes()
            throws Exception {
        open(DecodeSettings.defaults());
        // The flows end at T - 1 s (V9Datagrams); received 2 h later, 1 h before, and on time.
        long late = T + Duration.ofHours(2).toMillis();
        long early = T - Duration.ofHours(1).toMillis();
        byte[] p = payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1));
        send(stamped("edge", 1, 1, 0, late, p));
        send(stamped("edge", 1, 1, 1, early, payload(1, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        send(stamped("edge", 1, 1, 2, T, payload(2, 0, List.of(), LAYOUT_A, flows(1, 1, 1))));
        List<FlowRecord> out = harness.extractOutputValues();
        assertThat(out).hasSize(3);
        FlowRecord old = out.get(0);
        assertThat(old.flowEndMillis()).isEqualTo(late - Duration.ofMinutes(5).toMillis());
        assertThat(old.flowEndMillis() - old.flowStartMillis()).isEqualTo(9_000); // its length
        assertThat(old.exportedFlowEndMillis()).isEqualTo(T - 1_000);
        assertThat(old.exportedFlowStartMillis()).isEqualTo(T - 10_000);
        FlowRecord future = out.get(1);
        assertThat(future.flowEndMillis()).isEqualTo(early + Duration.ofMinutes(5).toMillis());
        assertThat(future.exportedFlowEndMillis()).isEqualTo(T - 1_000);
        FlowRecord ok = out.get(2);
        assertThat(ok.flowEndMillis()).isEqualTo(T - 1_000);
        assertThat(ok.flowStartMillis()).isEqualTo(T - 10_000);
        assertThat(ok.exportedFlowEndMillis()).isZero();
        assertThat(ok.exportedFlowStartMillis()).isZero();
        assertThat(rejected()).isEmpty();
    }

    @Test
    void aLongFlowIsCutToTheLongestDuration() throws Exception {
        EventTimeSettings e =
                new EventTimeSettings(
                        Duration.ofHours(1),
                        Duration.ofMinutes(5),
                        Duration.ofSeconds(4),
                        OutOfRange.CLAMP);
        open(DecodeSettings.defaults().withEventTime(e));
        send(
                stamped(
                        "edge",
                        1,
                        1,
                        0,
                        T,
                        payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1))));
        FlowRecord f = harness.extractOutputValues().get(0);
        assertThat(f.flowEndMillis()).isEqualTo(T - 1_000);
        assertThat(f.flowStartMillis()).isEqualTo(T - 5_000);
        assertThat(f.exportedFlowStartMillis()).isEqualTo(T - 10_000);
    }

    @Test
    void underTheRejectPolicyAnOutOfRangeFlowIsDroppedAndItsDatagramDeadLetteredOnce()
            throws Exception {
        EventTimeSettings e =
                new EventTimeSettings(
                        Duration.ofHours(1),
                        Duration.ofMinutes(5),
                        Duration.ofHours(1),
                        OutOfRange.REJECT);
        open(DecodeSettings.defaults().withEventTime(e));
        long late = T + Duration.ofHours(2).toMillis();
        send(
                stamped(
                        "edge",
                        1,
                        1,
                        0,
                        T,
                        payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(2, 1, 1))));
        // The template again: two hours of receive time are past its lifetime.
        send(
                stamped(
                        "edge",
                        1,
                        1,
                        1,
                        late,
                        payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 1, 1))));
        assertThat(harness.extractOutputValues()).hasSize(2);
        assertThat(rejected()).hasSize(1);
        assertThat(rejected().get(0).reason()).isEqualTo("EVENT_TIME_OUT_OF_RANGE");
        assertThat(rejected().get(0).detail()).startsWith("3 records ended outside");
        assertThat(lastStats().rejectedRecords()).isEqualTo(1);
    }
}
