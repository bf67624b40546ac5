// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.EXPORT_MILLIS;
import static io.flowhouse.jobs.decode.V9Datagrams.LAYOUT_A;
import static io.flowhouse.jobs.decode.V9Datagrams.datagram;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static io.flowhouse.jobs.decode.V9Datagrams.payload;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.config.DecodeStateLimits;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.OptionsInterfaceName;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decode state under floods: bounded in bytes per exporter and per instance (measured by
 * serializing what state holds, not by the operator's own count), templates that expire and are
 * withdrawn leave state and reach the archive as ends, held datagrams stay within their bounds and
 * are re-decoded only when a template they wait for comes, and an idle exporter leaves nothing
 * behind, in state or timers.
 */
class DecodeStateBoundsTest {

    private static final String R1 = "192.0.2.210";
    private static final String R2 = "192.0.2.211";
    private static final long T0 = EXPORT_MILLIS;
    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long MINUTE = 60_000L;

    private DecodeAndStatsHarness h;

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private void open(DecodeSettings settings, boolean rocksDb) throws Exception {
        h = new DecodeAndStatsHarness(settings, rocksDb, null);
        h.setProcessingTime(1_000L);
    }

    private static DecodeSettings bounded(long perExporter, long total, long held) {
        return DecodeSettings.defaults()
                .withStateLimits(DecodeStateLimits.defaults().withBytes(perExporter, total, held));
    }

    private void send(String exporter, int port, long received, byte[] payload) throws Exception {
        h.processElement1(new StreamRecord<>(datagram(exporter, port, received, payload)));
    }

    private List<RejectedDatagram> rejected() {
        var q = h.getSideOutput(DecodeOutputs.REJECTED);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private List<ArchivedTemplate> archived() {
        var q = h.getSideOutput(DecodeOutputs.TEMPLATES);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private DecodeMetrics metrics() {
        return h.function().metrics();
    }

    private DecodeStateLedger ledger() {
        return h.function().ledger();
    }

    private ExporterFootprint footprint(String exporter, int port) throws Exception {
        return DecodeStateBytes.footprint(
                h.operator(), new ExporterKey(IpAddress.parse(exporter), port));
    }

    private DecodeStateBytes.Measure measure() throws Exception {
        return DecodeStateBytes.of(h.operator());
    }

    /** The operator's count never falls short of what its state really holds. */
    private void assertCountCovers(DecodeStateBytes.Measure m) {
        assertThat(ledger().bytes()).isGreaterThanOrEqualTo(m.total());
        assertThat(ledger().exporters()).isEqualTo(m.keys());
    }

    /** After the idle timeouts nothing is left: no state, no timer, nothing counted. */
    private void assertAllGoneAfterIdle(long lastActiveMillis) throws Exception {
        h.setProcessingTime(lastActiveMillis + HOUR + 11 * MINUTE);
        assertThat(h.numKeyedStateEntries()).isZero();
        assertThat(h.numProcessingTimeTimers()).isZero();
        assertThat(ledger().bytes()).isZero();
        assertThat(ledger().exporters()).isZero();
    }

    // ---- IPFIX messages -------------------------------------------------------------------

    private static final IpfixEncoder ENCODER = new IpfixEncoder();

    private static byte[] ipfix(long domain, Consumer<IpfixEncoder.Message> body) {
        ByteBuffer b = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = ENCODER.begin(b, domain, EXPORT_MILLIS / 1000);
        body.accept(m);
        int n = m.finish();
        return Arrays.copyOf(b.array(), n);
    }

    /** A template of {@code fields} sourceIPv4Address fields (data never sent with it). */
    private static Template wide(int id, int fields) {
        List<FieldSpecifier> f = new ArrayList<>();
        for (int i = 0; i < fields; i++) {
            f.add(FieldSpecifier.of(8, 4));
        }
        return Template.of(id, f);
    }

    private static byte[] templates(long domain, int firstId, int n, int fields) {
        return ipfix(
                domain,
                m -> {
                    for (int i = 0; i < n; i++) {
                        m.template(wide(firstId + i, fields));
                    }
                });
    }

    /** The IPv4 flow layout under another id. */
    private static Template flowLayout(int id) {
        return new Template(id, IpfixEncoder.FLOW_TEMPLATE_IPV4.fields(), 0);
    }

    private static byte[] ipfixFlows(long domain, Template t, boolean withTemplate, int n) {
        return ipfix(
                domain,
                m -> {
                    if (withTemplate) {
                        m.template(t);
                    }
                    m.data(t.templateId());
                    for (FlowRecord r : flows(n, 2, 200)) {
                        IpfixEncoder.writeFlow(m, t, r);
                    }
                });
    }

    // ---- floods ---------------------------------------------------------------------------

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void templateFloodOverHundredsOfSourcePortsStaysUnderBothBounds(boolean rocksDb)
            throws Exception {
        long perExporter = 4 << 10;
        long total = 256 << 10;
        open(bounded(perExporter, total, 1 << 10), rocksDb);
        for (int port = 10_000; port < 10_300; port++) {
            send(R1, port, T0, templates(0, 256, 100, 5));
        }
        DecodeStateBytes.Measure m = measure();
        assertThat(m.maxPerKey()).isLessThanOrEqualTo(perExporter);
        assertThat(m.total()).isLessThanOrEqualTo(total);
        assertCountCovers(m);
        assertThat(ledger().bytes()).isLessThanOrEqualTo(total);
        // 300 ports would hold 1.2 MB at their own bound: the instance bound refused the rest.
        assertThat(metrics().refusedTemplates.getCount()).isPositive();
        assertThat(m.keys()).isLessThan(300);
        // A good exporter that already holds its templates keeps decoding.
        assertAllGoneAfterIdle(1_000L);
    }

    @Test
    void thousandsOfTemplatesFromOneExporterStopAtItsBytes() throws Exception {
        long perExporter = 64 << 10;
        open(bounded(perExporter, 1 << 20, 1 << 10), false);
        for (int i = 0; i < 20; i++) {
            send(R1, 2055, T0 + i, templates(0, 256 + i * 500, 500, 10));
        }
        DecodeStateBytes.Measure m = measure();
        assertThat(m.total()).isLessThanOrEqualTo(perExporter);
        assertCountCovers(m);
        ExporterFootprint fp = footprint(R1, 2055);
        assertThat(fp.templates).isBetween(100, TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER);
        assertThat(metrics().refusedTemplates.getCount()).isEqualTo(10_000 - fp.templates);
        assertAllGoneAfterIdle(1_000L);
    }

    @Test
    void randomV9SourceIdsAreBoundedInScopesAndTheStatisticsStayExact() throws Exception {
        open(
                DecodeSettings.defaults()
                        .withTemplateHold(Duration.ZERO)
                        .withStateLimits(DecodeStateLimits.defaults().withScopes(16, 16)),
                false);
        Random random = new Random(7);
        int n = 2_000;
        for (int i = 0; i < n; i++) {
            long sourceId = random.nextInt() & 0xffff_ffffL;
            send(
                    R1,
                    2055,
                    T0 + i,
                    payload(i, sourceId, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        }
        // A good exporter beside it decodes everything.
        int before = h.extractOutputValues().size();
        send(R2, 2055, T0, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(3, 1, 1)));
        assertThat(h.extractOutputValues()).hasSize(before + 3);
        ExporterFootprint fp = footprint(R1, 2055);
        assertThat(fp.scopes).isEqualTo(16);
        assertThat(fp.templates).isEqualTo(16);
        assertThat(metrics().refusedTemplates.getCount()).isEqualTo(n - 16);

        h.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        List<ExporterStats> r1 =
                h.stats().stream()
                        .filter(s -> s.exporterAddress().equals(IpAddress.parse(R1)))
                        .toList();
        assertThat(r1.stream().map(ExporterStats::observationDomainId).distinct().count())
                .isEqualTo(17);
        assertThat(r1)
                .anySatisfy(
                        s ->
                                assertThat(s.observationDomainId())
                                        .isEqualTo(AggregateExporterStats.OTHER_DOMAINS));
        // Folded, but every datagram is counted once.
        assertThat(r1.stream().mapToLong(ExporterStats::datagrams).sum()).isEqualTo(n);
        assertAllGoneAfterIdle(1_000L);
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void withdrawAllFloodsLeaveOnlyTheirMarksAndArchiveEveryEnd(boolean rocksDb) throws Exception {
        open(DecodeSettings.defaults(), rocksDb);
        int rounds = 100;
        for (int i = 0; i < rounds; i++) {
            send(R1, 4739, T0 + 2L * i, templates(1, 300, 50, 3));
            long at = T0 + 2L * i + 1;
            send(
                    R1,
                    4739,
                    at,
                    ipfix(
                            1,
                            m -> {
                                for (int k = 0; k < 1_000; k++) {
                                    m.withdraw(2, false);
                                }
                                m.withdraw(3, true);
                            }));
        }
        // Only the scope's two withdraw-all marks are left (and the footprint counting them;
        // on the heap a map counts as one entry), whatever the flood's length.
        ExporterFootprint fp = footprint(R1, 4739);
        assertThat(fp.templates).isZero();
        assertThat(fp.scopes).isZero();
        assertThat(fp.withdrawals).isEqualTo(2);
        assertThat(h.decodeStateEntries()).isEqualTo(rocksDb ? 3 : 2);
        assertThat(h.decodeTimers()).isEqualTo(1); // the idle timer
        assertThat(ledger().bytes())
                .isEqualTo(ExporterFootprint.OWN_BYTES + 2L * DecodeStateLimits.ENTRY_OVERHEAD);
        assertThat(metrics().withdrawalMarks.getCount()).isEqualTo(2);
        List<ArchivedTemplate> ends = archived().stream().filter(ArchivedTemplate::ended).toList();
        assertThat(ends).hasSize(rounds * 50);
        assertThat(ends)
                .allSatisfy(a -> assertThat(a.end()).isEqualTo(ArchivedTemplate.End.WITHDRAWN));
        assertThat(ends.get(0).endedMillis()).isEqualTo(T0 + 1);
        assertThat(metrics().templatesWithdrawn.getCount()).isEqualTo(rounds * 50L);
        assertAllGoneAfterIdle(1_000L);
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void heldFloodStaysInItsBoundsAndATemplateReleasesOnlyItsOwnWaiters(boolean rocksDb)
            throws Exception {
        int maxHeld = 50;
        long maxHeldBytes = 48 << 10;
        DecodeSettings s =
                new DecodeSettings(
                        Duration.ofSeconds(30),
                        maxHeld,
                        DecodeSettings.defaults().scopeMode(),
                        DecodeSettings.defaults().sampling(),
                        true,
                        TemplateLimits.defaults(),
                        OptionsLimits.defaults(),
                        DecodeStateLimits.defaults().withBytes(4 << 20, 64 << 20, maxHeldBytes));
        open(s, rocksDb);
        Template t256 = flowLayout(256);
        Template t400 = flowLayout(400);
        int n = 500;
        int waitingFor400 = 0;
        for (int i = 0; i < n; i++) {
            boolean on400 = i >= n - 20;
            waitingFor400 += on400 ? 1 : 0;
            send(R1, 4739, T0 + i, ipfixFlows(1, on400 ? t400 : t256, false, 10));
        }
        ExporterFootprint fp = footprint(R1, 4739);
        assertThat(fp.held).isLessThanOrEqualTo(maxHeld);
        assertThat(fp.heldBytes).isLessThanOrEqualTo(maxHeldBytes);
        DecodeStateBytes.Measure m = measure();
        assertCountCovers(m);
        int held = fp.held;
        assertThat(metrics().heldEvicted.getCount()).isEqualTo(n - held);
        assertThat(rejected()).hasSize(n - held);
        assertThat(rejected())
                .allSatisfy(r -> assertThat(r.reason()).isEqualTo("TEMPLATE_MISSING"));

        long redecodedBefore = metrics().heldRedecoded.getCount();
        send(R1, 4739, T0 + n, ipfix(1, msg -> msg.template(t400)));
        // Only the datagrams that wait for 400 were decoded again, and all of them came out.
        assertThat(metrics().heldRedecoded.getCount() - redecodedBefore).isEqualTo(waitingFor400);
        assertThat(h.extractOutputValues()).hasSize(waitingFor400 * 10);
        assertThat(footprint(R1, 4739).held).isEqualTo(held - waitingFor400);

        h.setProcessingTime(1_000L + 31_000L);
        assertThat(rejected()).hasSize(n - waitingFor400);
        fp = footprint(R1, 4739);
        assertThat(fp.held).isZero();
        assertThat(fp.heldBytes).isZero();
        assertThat(fp.heldTimer).isZero();
        assertAllGoneAfterIdle(1_000L);
    }

    // ---- lifetimes and the archive ----------------------------------------------------------

    @Test
    void templatesExpireALifetimeAfterTheirLastResendInReceiveTime() throws Exception {
        open(DecodeSettings.defaults(), false);
        long lifetime = DecodeStateLimits.DEFAULT_TEMPLATE_LIFETIME.toMillis();
        send(R1, 2055, T0, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        send(R1, 2055, T0 + lifetime - MINUTE, payload(2, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        // A re-send renews it.
        long resent = T0 + lifetime - MINUTE;
        send(R1, 2055, resent, payload(3, 0, List.of(LAYOUT_A), null, List.of()));
        send(
                R1,
                2055,
                resent + lifetime - 1_000,
                payload(4, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        assertThat(h.extractOutputValues()).hasSize(3);
        // A lifetime after the last re-send it is gone: held, then dead-lettered.
        send(
                R1,
                2055,
                resent + lifetime + 1_000,
                payload(5, 0, List.of(), LAYOUT_A, flows(1, 1, 1)));
        assertThat(h.extractOutputValues()).hasSize(3);
        assertThat(metrics().templatesExpired.getCount()).isEqualTo(1);
        List<ArchivedTemplate> ends = archived().stream().filter(ArchivedTemplate::ended).toList();
        assertThat(ends).hasSize(1);
        assertThat(ends.get(0).end()).isEqualTo(ArchivedTemplate.End.EXPIRED);
        assertThat(ends.get(0).endedMillis()).isEqualTo(resent + lifetime);
        assertThat(ends.get(0).learnedMillis()).isEqualTo(T0);
        h.setProcessingTime(1_000L + 31_000L);
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("TEMPLATE_MISSING");
    }

    @Test
    void archiveRestoreHonoursTheEndOfATemplate() throws Exception {
        open(DecodeSettings.defaults(), false);
        byte[] wire = TemplateWire.encode(LAYOUT_A);
        IpAddress r1 = IpAddress.parse(R1);
        // As the topic holds them before compaction: the template, then its withdrawal.
        h.processElement2(
                new StreamRecord<>(
                        new ArchivedTemplate(
                                r1,
                                2055,
                                9,
                                0,
                                256,
                                wire,
                                T0,
                                T0 + 10 * MINUTE,
                                Long.MAX_VALUE,
                                ArchivedTemplate.End.LIVE)));
        h.processElement2(
                new StreamRecord<>(
                        new ArchivedTemplate(
                                r1,
                                2055,
                                9,
                                0,
                                256,
                                wire,
                                T0,
                                T0 + 10 * MINUTE,
                                T0 + 20 * MINUTE,
                                ArchivedTemplate.End.WITHDRAWN)));
        // A later live entry of an older learning does not bring it back.
        h.processElement2(new StreamRecord<>(new ArchivedTemplate(r1, 2055, 9, 0, 256, wire, T0)));
        send(R1, 2055, T0 + 15 * MINUTE, payload(1, 0, List.of(), LAYOUT_A, flows(2, 1, 1)));
        assertThat(h.extractOutputValues()).hasSize(2);
        send(R1, 2055, T0 + 25 * MINUTE, payload(2, 0, List.of(), LAYOUT_A, flows(3, 1, 1)));
        assertThat(h.extractOutputValues()).hasSize(2);
        h.setProcessingTime(1_000L + 31_000L);
        assertThat(rejected())
                .extracting(RejectedDatagram::reason)
                .containsExactly("TEMPLATE_MISSING");
        // Restores write nothing back to the archive.
        assertThat(archived()).isEmpty();
    }

    @Test
    void archiveRecordsOverTheBoundAreSkippedCountedAndDecodingGoesOn() throws Exception {
        DecodeSettings s =
                DecodeSettings.defaults()
                        .withLimits(
                                TemplateLimits.defaults(), new OptionsLimits(2_000, 4_096, 1 << 20))
                        .withStateLimits(
                                DecodeStateLimits.defaults().withArchiveMaxRecordBytes(4_096));
        open(s, false);
        Template names =
                new Template(
                        300, List.of(FieldSpecifier.of(10, 4), FieldSpecifier.of(82, 0xffff)), 1);
        char[] name = new char[1_500];
        Arrays.fill(name, 'x');
        send(
                R1,
                4739,
                T0,
                ipfix(
                        1,
                        m -> {
                            m.template(names).data(300);
                            for (int i = 0; i < 10; i++) {
                                m.u32(i).varString(new String(name)).endRecord();
                            }
                        }));
        send(R1, 4739, T0 + 1, ipfixFlows(1, flowLayout(256), true, 4));
        assertThat(h.extractOutputValues()).hasSize(4);
        assertThat(metrics().archiveSkipped.getCount()).isEqualTo(1);
        assertThat(archived()).extracting(ArchivedTemplate::templateId).containsExactly(300, 256);
        assertThat(rejected()).isEmpty();
    }

    private List<OptionsInterfaceName> names() {
        var q = h.getSideOutput(DecodeOutputs.INTERFACE_NAMES);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    /**
     * The enrich stage is told what changed, not the whole scope: 3,000 names once, then one
     * renamed interface is one record (it went to every enrich subtask 3,000 times before), and a
     * re-send of the same names is none.
     */
    @Test
    void aScopeRenamingOneInterfaceAmongThousandsSendsOneName() throws Exception {
        open(DecodeSettings.defaults(), false);
        Template names =
                new Template(
                        300, List.of(FieldSpecifier.of(10, 4), FieldSpecifier.of(82, 0xffff)), 1);
        int n = 3_000;
        send(
                R1,
                4739,
                T0,
                ipfix(
                        1,
                        m -> {
                            m.template(names).data(300);
                            for (int i = 0; i < n; i++) {
                                m.u32(i).varString("if-" + i).endRecord();
                            }
                        }));
        assertThat(names()).hasSize(n);
        send(R1, 4739, T0 + 1, ipfix(1, m -> m.data(300).u32(7).varString("renamed").endRecord()));
        assertThat(names())
                .hasSize(n + 1)
                .last()
                .isEqualTo(new OptionsInterfaceName(IpAddress.parse(R1), 7, "renamed"));
        send(R1, 4739, T0 + 2, ipfix(1, m -> m.data(300).u32(7).varString("renamed").endRecord()));
        send(R1, 4739, T0 + 3, ipfix(1, m -> m.data(300).u32(8).varString("if-8").endRecord()));
        assertThat(names()).hasSize(n + 1);
        // The archive still gets the whole scope: it is the state a restart reads back.
        assertThat(archived())
                .filteredOn(a -> a.templateId() == ArchivedTemplate.OPTIONS_DATA)
                .hasSize(2);
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void theInstanceTotalIsRebuiltFromStateOnRestore(boolean rocksDb) throws Exception {
        open(bounded(4 << 10, 64 << 10, 1 << 10), rocksDb);
        for (int port = 20_000; port < 20_040; port++) {
            send(R1, port, T0, templates(0, 256, 20, 4));
        }
        long bytes = ledger().bytes();
        long exporters = ledger().exporters();
        assertThat(bytes).isPositive();
        OperatorSubtaskState snapshot = h.snapshotDecode();
        h.close();
        h = new DecodeAndStatsHarness(bounded(4 << 10, 64 << 10, 1 << 10), rocksDb, snapshot);
        assertThat(ledger().bytes()).isEqualTo(bytes);
        assertThat(ledger().exporters()).isEqualTo(exporters);
        assertCountCovers(measure());
    }

    @Test
    void theStatisticsWriteAMinuteOnceAndForgetIdleDomains() throws Exception {
        open(DecodeSettings.defaults(), false);
        send(R1, 2055, 10, payload(1, 0, List.of(LAYOUT_A), LAYOUT_A, flows(1, 1, 1)));
        h.setProcessingTime(AggregateExporterStats.STATS_INTERVAL_MILLIS);
        assertThat(h.stats()).hasSize(1);
        // Nothing changed: the minute's row is not written again.
        h.setProcessingTime(3 * AggregateExporterStats.STATS_INTERVAL_MILLIS);
        assertThat(h.stats()).hasSize(1);
        h.setProcessingTime(1_000L + 11 * MINUTE);
        assertThat(h.statsStateEntries()).isZero();
        assertThat(h.statsTimers()).isZero();
    }
}
