// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.EXPORT_MILLIS;
import static io.flowhouse.jobs.decode.V9Datagrams.datagram;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateLimits;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.config.DecodeStateLimits;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A replay from before an IPFIX withdrawal, with the withdrawal reaching the decode step before the
 * templates topic's live record of the template: the withdrawal leaves a mark in state, so the
 * archived template is restored ended at the withdrawal. Data received before it decodes, data
 * received after it does not, whatever order the two inputs arrive in, and across a checkpoint
 * restore. Marks are bounded by the exporter's template cap and leave state a template lifetime
 * after the withdrawal.
 */
class WithdrawalMarksTest {

    private static final String R1 = "192.0.2.220";
    private static final int PORT = 4739;
    private static final long T0 = EXPORT_MILLIS;
    private static final Template FLOWS = IpfixEncoder.FLOW_TEMPLATE_IPV4;
    private static final IpfixEncoder ENCODER = new IpfixEncoder();
    private static final long HOLD = 30_000L;

    private DecodeAndStatsHarness h;

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private void open(DecodeSettings s, boolean rocksDb, OperatorSubtaskState restore)
            throws Exception {
        h = new DecodeAndStatsHarness(s, rocksDb, restore);
        h.setProcessingTime(1_000L);
    }

    private static byte[] ipfix(Consumer<IpfixEncoder.Message> body) {
        ByteBuffer b = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = ENCODER.begin(b, 1, T0 / 1000);
        body.accept(m);
        return Arrays.copyOf(b.array(), m.finish());
    }

    private static byte[] data(int n) {
        return ipfix(
                m -> {
                    m.data(FLOWS.templateId());
                    for (FlowRecord r : flows(n, 2, 200)) {
                        IpfixEncoder.writeFlow(m, FLOWS, r);
                    }
                });
    }

    private void send(long received, byte[] payload) throws Exception {
        h.processElement1(new StreamRecord<>(datagram(R1, PORT, received, payload)));
    }

    private void restore(long learned, long ended, ArchivedTemplate.End end) throws Exception {
        h.processElement2(
                new StreamRecord<>(
                        new ArchivedTemplate(
                                IpAddress.parse(R1),
                                PORT,
                                10,
                                1,
                                FLOWS.templateId(),
                                TemplateWire.encode(FLOWS),
                                learned,
                                learned,
                                ended,
                                end)));
    }

    private List<RejectedDatagram> rejected() {
        var q = h.getSideOutput(DecodeOutputs.REJECTED);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private ExporterFootprint footprint() throws Exception {
        return DecodeStateBytes.footprint(h.operator(), new ExporterKey(IpAddress.parse(R1), PORT));
    }

    private static byte[] withdrawal(boolean all) {
        return ipfix(m -> m.withdraw(all ? 2 : FLOWS.templateId(), false));
    }

    /**
     * The order that failed once in {@code TemplateArchiveITCase}: the replayed data and the
     * withdrawal first, the archive's live record of the template last, its withdrawn record after
     * the held data was decided. Once with a checkpoint restore between the withdrawal and the
     * archive.
     */
    @ParameterizedTest(name = "withdrawAll={0}")
    @ValueSource(booleans = {false, true})
    void aWithdrawalBeforeTheArchivedTemplateEndsItThere(boolean all) throws Exception {
        for (boolean restoreBetween : List.of(false, true)) {
            open(DecodeSettings.defaults(), restoreBetween, null);
            send(T0 + 1_000, data(5)); // held: the template is not known yet
            send(T0 + 2_000, withdrawal(all)); // nothing to withdraw in state: a mark
            send(T0 + 3_000, data(7)); // held
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(footprint().withdrawals).isEqualTo(1);
            if (restoreBetween) {
                OperatorSubtaskState snapshot = h.snapshotDecode();
                h.close();
                open(DecodeSettings.defaults(), true, snapshot);
            }
            restore(T0, Long.MAX_VALUE, ArchivedTemplate.End.LIVE);
            // The datagram before the withdrawal decodes, the one after it still waits.
            assertThat(h.extractOutputValues()).hasSize(5);
            h.setProcessingTime(1_000L + HOLD + 1_000L);
            assertThat(rejected())
                    .extracting(RejectedDatagram::reason)
                    .containsExactly("TEMPLATE_MISSING");
            // The archive's own end changes nothing now, and data after the withdrawal waits.
            restore(T0, T0 + 2_000, ArchivedTemplate.End.WITHDRAWN);
            send(T0 + 4_000, data(3));
            assertThat(h.extractOutputValues()).hasSize(5);
            // The exporter announces it again: what waited and what follows decode with it, as
            // live.
            send(T0 + 5_000, ipfix(m -> m.template(FLOWS)));
            send(T0 + 6_000, data(2));
            assertThat(h.extractOutputValues()).hasSize(5 + 3 + 2);
            h.close();
            h = null;
        }
    }

    /** A template learned after the withdrawal is not ended by it. */
    @ParameterizedTest(name = "withdrawAll={0}")
    @ValueSource(booleans = {false, true})
    void aTemplateLearnedAfterTheWithdrawalIsNotEndedByIt(boolean all) throws Exception {
        open(DecodeSettings.defaults(), false, null);
        send(T0 + 2_000, withdrawal(all));
        send(T0 + 3_000, data(7));
        restore(T0 + 2_500, Long.MAX_VALUE, ArchivedTemplate.End.LIVE);
        assertThat(h.extractOutputValues()).hasSize(7);
        // Learned in the withdrawal's own datagram, after it: not ended either.
        send(T0 + 4_000, withdrawal(all));
        restore(T0 + 4_000, Long.MAX_VALUE, ArchivedTemplate.End.LIVE);
        send(T0 + 4_500, data(1));
        assertThat(h.extractOutputValues()).hasSize(8);
    }

    /** The archive's live record read back while the job runs, after the stream withdrew it. */
    @ParameterizedTest(name = "withdrawAll={0}")
    @ValueSource(booleans = {false, true})
    void aLateArchiveRecordDoesNotBringBackATemplateTheStreamWithdrew(boolean all)
            throws Exception {
        open(DecodeSettings.defaults(), false, null);
        send(T0, ipfix(m -> m.template(FLOWS)));
        send(T0 + 1_000, data(5));
        send(T0 + 2_000, withdrawal(all));
        restore(T0, Long.MAX_VALUE, ArchivedTemplate.End.LIVE);
        send(T0 + 3_000, data(7));
        assertThat(h.extractOutputValues()).hasSize(5);
        h.setProcessingTime(1_000L + HOLD + 1_000L);
        assertThat(rejected()).hasSize(1);
    }

    /**
     * Withdrawals of templates never announced, from one exporter: marks stop at the exporter's
     * template cap (counted), stay within its bytes, and leave a template lifetime (plus the
     * archive's lag) after the withdrawal; after the idle timeout nothing is left.
     */
    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void marksAreBoundedAndExpire(boolean rocksDb) throws Exception {
        int cap = 50;
        Duration lifetime = Duration.ofMinutes(30);
        Duration idle = Duration.ofHours(1);
        DecodeSettings s =
                DecodeSettings.defaults()
                        .withLimits(
                                TemplateLimits.defaults().withMaxTemplatesPerExporter(cap),
                                DecodeSettings.defaults().optionsLimits())
                        .withStateLimits(
                                DecodeStateLimits.defaults()
                                        .withTimes(lifetime, idle, Duration.ofMinutes(10)));
        open(s, rocksDb, null);
        send(
                T0,
                ipfix(
                        m -> {
                            for (int id = 256; id < 456; id++) {
                                m.withdraw(id, false);
                            }
                        }));
        DecodeRawFlowFunction f = h.function();
        assertThat(footprint().withdrawals).isEqualTo(cap);
        assertThat(f.metrics().withdrawalMarks.getCount()).isEqualTo(cap);
        assertThat(f.metrics().refusedWithdrawalMarks.getCount()).isEqualTo(200 - cap);
        DecodeStateBytes.Measure m = DecodeStateBytes.of(h.operator());
        assertThat(f.ledger().bytes()).isGreaterThanOrEqualTo(m.total());
        assertThat(m.entries()).isEqualTo(cap + 1); // the marks and the footprint

        // Still kept a lifetime after the withdrawal (the archive may be a quarter late); a
        // second withdrawal of one of them moves its mark on.
        long keep = lifetime.toMillis() + lifetime.toMillis() / 4;
        h.setProcessingTime(1_000L + idle.toMillis() - 1_000L);
        send(T0 + keep, ipfix(m2 -> m2.withdraw(256, false)));
        h.setProcessingTime(1_000L + idle.toMillis());
        assertThat(footprint().withdrawals).isEqualTo(cap);
        assertThat(f.metrics().withdrawalMarks.getCount()).isEqualTo(cap);
        // Past it, the next sweep (an idle timer of a busy key) drops them, not the moved one.
        h.setProcessingTime(1_000L + 2 * idle.toMillis() - 2_000L);
        send(T0 + keep + 1_000, ipfix(m2 -> m2.template(FLOWS)));
        h.setProcessingTime(1_000L + 2 * idle.toMillis() + 1_000L);
        assertThat(footprint().withdrawals).isEqualTo(1);
        assertThat(footprint().templates).isEqualTo(1);

        h.setProcessingTime(1_000L + 4 * idle.toMillis());
        assertThat(h.decodeStateEntries()).isZero();
        assertThat(h.decodeTimers()).isZero();
        assertThat(f.ledger().bytes()).isZero();
    }
}
