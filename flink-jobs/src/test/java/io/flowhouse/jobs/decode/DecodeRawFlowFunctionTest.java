// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.LAYOUT_A;
import static io.flowhouse.jobs.decode.V9Datagrams.LAYOUT_B;
import static io.flowhouse.jobs.decode.V9Datagrams.datagram;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static io.flowhouse.jobs.decode.V9Datagrams.payload;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.config.SamplingPolicy;
import io.flowhouse.jobs.config.TemplateScopeMode;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DecodeRawFlowFunctionTest {

    private static final String R1 = "192.0.2.200";
    private static final String R2 = "192.0.2.201";

    private DecodeAndStatsHarness harness;

    private void open(DecodeSettings settings) throws Exception {
        harness = new DecodeAndStatsHarness(settings);
        harness.setProcessingTime(1_000L);
    }

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private void send(String exporter, int port, long received, byte[] payload) throws Exception {
        harness.processElement1(new StreamRecord<>(datagram(exporter, port, received, payload)));
    }

    private List<FlowRecord> out() {
        return harness.extractOutputValues();
    }

    private List<RejectedDatagram> rejected() {
        var q = harness.getSideOutput(DecodeOutputs.REJECTED);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private List<ArchivedTemplate> archived() {
        var q = harness.getSideOutput(DecodeOutputs.TEMPLATES);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private List<ExporterStats> stats() {
        return harness.stats();
    }

    @Test
    void dataBeforeTemplateIsHeldThenDecodedOnce() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, payload(1, 0, List.of(), LAYOUT_A, flows(5, 3, 300)));
        assertThat(out()).isEmpty();
        send(R1, 2055, 11, payload(2, 0, List.of(LAYOUT_A), LAYOUT_A, flows(2, 1, 100)));
        List<FlowRecord> got = out();
        assertThat(got).hasSize(7);
        assertThat(got.stream().mapToLong(FlowRecord::packets).sum()).isEqualTo(5 * 3 + 2);
        assertThat(got.stream().mapToLong(FlowRecord::bytes).sum()).isEqualTo(5 * 300 + 200);
        assertThat(rejected()).isEmpty();
        // Nothing more comes out when the hold time passes: the held datagram is gone.
        harness.setProcessingTime(1_000L + Duration.ofSeconds(31).toMillis());
        assertThat(out()).hasSize(7);
        assertThat(rejected()).isEmpty();
        assertThat(archived()).hasSize(1);
        assertThat(TemplateWire.decodeTemplate(archived().get(0).wire())).isEqualTo(LAYOUT_A);
    }

    @Test
    void templateChangeMidStreamUsesTheNewLayoutFromThereOn() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 2, 1_000)));
        send(
                R1,
                2055,
                11,
                payload(
                        2,
                        0,
                        List.of(LAYOUT_B),
                        LAYOUT_B,
                        flows(4, 5_000_000_000L, 7_000_000_000L)));
        send(R1, 2055, 12, payload(3, 0, List.of(), LAYOUT_B, flows(1, 6, 600)));
        List<FlowRecord> got = out();
        assertThat(got).hasSize(8);
        assertThat(got.subList(0, 3)).allSatisfy(f -> assertThat(f.bytes()).isEqualTo(1_000));
        assertThat(got.subList(3, 7))
                .allSatisfy(
                        f -> {
                            assertThat(f.bytes()).isEqualTo(7_000_000_000L);
                            assertThat(f.tos()).isEqualTo(0x28);
                        });
        assertThat(got.get(7).packets()).isEqualTo(6);
        assertThat(archived()).hasSize(2);
    }

    @Test
    void exporterRestartResetsTheSequenceWithoutCountingLoss() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, payload(100, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        send(R1, 2055, 11, payload(101, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        send(R1, 2055, 12, payload(104, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        // Restart: the sequence starts again from 0 and the template is sent again.
        send(R1, 2055, 13, payload(0, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        send(R1, 2055, 14, payload(1, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        assertThat(out()).hasSize(5);
        harness.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        assertThat(stats()).hasSize(1);
        ExporterStats s = stats().get(0);
        assertThat(s.exporterAddress()).isEqualTo(IpAddress.parse(R1));
        assertThat(s.exporterPort()).isEqualTo(2055);
        assertThat(s.version()).isEqualTo(9);
        assertThat(s.minuteMillis()).isZero();
        assertThat(s.datagrams()).isEqualTo(5);
        assertThat(s.records()).isEqualTo(5);
        assertThat(s.templateRecords()).isEqualTo(2);
        assertThat(s.lostDatagrams()).isEqualTo(2);
        assertThat(s.sequenceGaps()).isEqualTo(1);
        assertThat(s.sequenceResets()).isEqualTo(1);
        assertThat(s.updatedAtMillis()).isEqualTo(14);
        // A datagram in a later minute closes the first one: its complete row comes out.
        send(R1, 2055, 60_100, payload(2, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        assertThat(stats()).hasSize(2);
        assertThat(stats().get(1)).isEqualTo(s);
    }

    @Test
    void twoExportersWithTheSameTemplateIdKeepTheirOwnLayouts() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(2, 3, 30)));
        send(R2, 2055, 10, payload(1, 0, List.of(LAYOUT_B), LAYOUT_B, flows(2, 9, 90)));
        send(R1, 2055, 11, payload(2, 0, List.of(), LAYOUT_A, flows(1, 3, 30)));
        send(R2, 2055, 11, payload(2, 0, List.of(), LAYOUT_B, flows(1, 9, 90)));
        // Same address, other port: another transport session, no template yet.
        send(R1, 2056, 12, payload(1, 0, List.of(), LAYOUT_A, flows(1, 3, 30)));
        var byExporter =
                out().stream()
                        .collect(
                                Collectors.groupingBy(
                                        f -> f.exporterAddress() + ":" + f.exporterPort(),
                                        Collectors.summingLong(FlowRecord::bytes)));
        assertThat(byExporter).containsEntry(R1 + ":2055", 90L).containsEntry(R2 + ":2055", 270L);
        assertThat(byExporter).doesNotContainKey(R1 + ":2056");
    }

    @Test
    void addressOnlyScopeSharesTemplatesAcrossPorts() throws Exception {
        open(DecodeSettings.defaults().withScopeMode(TemplateScopeMode.ADDRESS_ONLY));
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 3, 30)));
        send(R1, 40_001, 11, payload(2, 0, List.of(), LAYOUT_A, flows(1, 3, 30)));
        List<FlowRecord> got = out();
        assertThat(got).hasSize(2);
        assertThat(got.get(1).exporterPort()).isEqualTo(40_001);
    }

    @Test
    void heldDataExpiresToTheDeadLetterOutputAndStateReturnsToZero() throws Exception {
        open(DecodeSettings.defaults().withTemplateHold(Duration.ofSeconds(5)));
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        harness.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        int baseline = harness.numKeyedStateEntries();
        int decodeBaseline = harness.decodeStateEntries();
        // Idle timers only: the exporter's state (decode) and its scopes (stats) expire.
        assertThat(harness.decodeTimers()).isEqualTo(1);
        assertThat(harness.statsTimers()).isEqualTo(1);
        int idleTimers = harness.numProcessingTimeTimers();

        harness.setProcessingTime(70_000L);
        byte[] orphan = payload(2, 7, List.of(), LAYOUT_A, flows(4, 1, 1));
        send(R1, 2055, 11, orphan);
        assertThat(harness.numKeyedStateEntries()).isGreaterThan(baseline);
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(idleTimers + 1); // + hold

        harness.setProcessingTime(75_000L);
        assertThat(out()).hasSize(1);
        assertThat(rejected()).hasSize(1);
        RejectedDatagram r = rejected().get(0);
        assertThat(r.reason()).isEqualTo("TEMPLATE_MISSING");
        assertThat(r.detail()).contains("no template 256").contains("domain 7");
        assertThat(r.datagram().payload()).isEqualTo(orphan);

        harness.setProcessingTime(2 * AggregateExporterStats.STATS_INTERVAL_MILLIS);
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(idleTimers);
        // The held datagram and its timer are gone; the templates remain, and the statistics
        // got the counters and problem counts of domain 7 (TEMPLATE_MISSING).
        assertThat(harness.decodeStateEntries()).isEqualTo(decodeBaseline);
        ExporterStats s7 =
                stats().stream().filter(s -> s.observationDomainId() == 7).findFirst().get();
        assertThat(s7.rejectedRecords()).isEqualTo(1);
        assertThat(s7.problems()).containsEntry("TEMPLATE_MISSING", 1L);

        // Idle for the idle timeouts: nothing is left of the exporter, in state or timers.
        harness.setProcessingTime(70_000L + Duration.ofHours(1).toMillis());
        assertThat(harness.numKeyedStateEntries()).isZero();
        assertThat(harness.numProcessingTimeTimers()).isZero();
    }

    @Test
    void templatesOverTheFieldLimitAreRefusedCountedAndNotArchived() throws Exception {
        int fields = LAYOUT_A.fields().size();
        open(
                DecodeSettings.defaults()
                        .withTemplateHold(Duration.ZERO)
                        .withLimits(
                                new TemplateLimits(4096, fields - 1, 1 << 16),
                                OptionsLimits.defaults()));
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(2, 1, 10)));
        assertThat(out()).isEmpty();
        assertThat(archived()).isEmpty();
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("TEMPLATE_MISSING");
        assertThat(rejected().get(0).detail()).contains("TEMPLATE_TOO_LARGE");
        harness.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        ExporterStats s = stats().get(0);
        assertThat(s.problems())
                .containsEntry("TEMPLATE_TOO_LARGE", 1L)
                .containsEntry("TEMPLATE_MISSING", 1L);
    }

    @Test
    void zeroHoldRejectsAtOnceAndMalformedDatagramsAreRejected() throws Exception {
        open(DecodeSettings.defaults().withTemplateHold(Duration.ZERO));
        send(R1, 2055, 10, payload(1, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        send(R1, 2055, 11, new byte[] {0, 9, 0});
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("TEMPLATE_MISSING", "TRUNCATED_HEADER");
        assertThat(harness.numProcessingTimeTimers()).isEqualTo(1); // stats only
    }

    /** A good payload followed by a data set (id 256) that declares 100 bytes but has 4. */
    private static byte[] withSetPastEnd(byte[] good) {
        byte[] bad = Arrays.copyOf(good, good.length + 8);
        bad[good.length] = 0x01;
        bad[good.length + 3] = 100;
        return bad;
    }

    @Test
    void malformedSetIsDeadLetteredOnceAndTheGoodSetStillEmitted() throws Exception {
        open(DecodeSettings.defaults());
        byte[] bad = withSetPastEnd(payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 2, 200)));
        send(R1, 2055, 10, bad);
        assertThat(out()).hasSize(3);
        assertThat(out().stream().mapToLong(FlowRecord::packets).sum()).isEqualTo(6);
        assertThat(rejected()).hasSize(1);
        RejectedDatagram dl = rejected().get(0);
        assertThat(dl.reason()).isEqualTo("SET_LENGTH_PAST_END");
        assertThat(dl.detail())
                .contains("SET_LENGTH_PAST_END")
                .contains("3 records")
                .hasSizeLessThanOrEqualTo(DeadLetterPolicy.MAX_DETAIL);
        assertThat(dl.datagram().payload()).isEqualTo(bad);
        // A clean datagram after it: records, no dead letter.
        send(R1, 2055, 11, payload(2, 0, List.of(), LAYOUT_A, flows(2, 1, 100)));
        assertThat(out()).hasSize(5);
        assertThat(rejected()).hasSize(1);
        harness.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        ExporterStats s = stats().get(0);
        assertThat(s.rejectedRecords()).isEqualTo(1);
        assertThat(s.problems()).containsEntry("SET_LENGTH_PAST_END", 1L);
    }

    @Test
    void cleanDatagramsAreNeverDeadLettered() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(4, 1, 10)));
        send(R1, 2055, 11, payload(2, 0, List.of(), LAYOUT_A, flows(4, 1, 10)));
        assertThat(out()).hasSize(8);
        assertThat(rejected()).isEmpty();
    }

    @Test
    void heldMalformedDatagramIsDeadLetteredOnlyWhenReleased() throws Exception {
        open(DecodeSettings.defaults());
        byte[] bad = withSetPastEnd(payload(1, 0, List.of(), LAYOUT_A, flows(2, 1, 10)));
        send(R1, 2055, 10, bad);
        // Held for its template: nothing out, no dead letter yet.
        assertThat(out()).isEmpty();
        assertThat(rejected()).isEmpty();
        send(R1, 2055, 11, payload(2, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 10)));
        assertThat(out()).hasSize(3);
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("SET_LENGTH_PAST_END");
        harness.setProcessingTime(1_000L + Duration.ofSeconds(31).toMillis());
        assertThat(rejected()).hasSize(1);
        assertThat(out()).hasSize(3);
    }

    @Test
    void expiredMalformedDatagramIsDeadLetteredOnceAsTemplateMissing() throws Exception {
        open(DecodeSettings.defaults());
        send(R1, 2055, 10, withSetPastEnd(payload(1, 0, List.of(), LAYOUT_A, flows(2, 1, 10))));
        harness.setProcessingTime(1_000L + Duration.ofSeconds(31).toMillis());
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("TEMPLATE_MISSING");
        assertThat(rejected().get(0).detail()).contains("also SET_LENGTH_PAST_END");
        assertThat(out()).isEmpty();
    }

    @Test
    void archivedTemplateDecodesHeldDataButNotDataOlderThanIt() throws Exception {
        open(DecodeSettings.defaults());
        // Replay starts after the template was sent: data first, then the archive entry.
        send(R1, 2055, 5_000, payload(7, 0, List.of(), LAYOUT_A, flows(2, 4, 40)));
        send(R1, 2055, 500, payload(8, 0, List.of(), LAYOUT_A, flows(1, 4, 40)));
        assertThat(out()).isEmpty();
        harness.processElement2(
                new StreamRecord<>(
                        new ArchivedTemplate(
                                IpAddress.parse(R1),
                                2055,
                                9,
                                0,
                                256,
                                TemplateWire.encode(LAYOUT_A),
                                1_000)));
        // The datagram received after the archived template was learned decodes; the one
        // received before it may predate a template change and stays held.
        assertThat(out()).hasSize(2);
        harness.setProcessingTime(1_000L + 31_000L);
        assertThat(rejected()).hasSize(1);
    }

    @Test
    void samplingOverrideAndDefaultApply() throws Exception {
        open(
                DecodeSettings.defaults()
                        .withSampling(SamplingPolicy.parse(100, List.of(R1 + "=1000"))));
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        send(R2, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        assertThat(out()).extracting(FlowRecord::samplingRate).containsExactly(1000L, 100L);
        assertThat(out()).extracting(FlowRecord::packets).containsExactly(1L, 1L);
    }
}
