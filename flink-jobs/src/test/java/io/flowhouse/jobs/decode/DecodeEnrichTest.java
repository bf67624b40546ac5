// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.EXPORT_MILLIS;
import static io.flowhouse.jobs.decode.V9Datagrams.datagram;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decode's own enrichment: every decoded flow goes out again with its context on {@link
 * DecodeOutputs#ENRICHED}, named from the options data of its exporter that decode holds; after a
 * restore the names come back from decode's checkpointed state (before any options data is sent
 * again), within the enrichment's bounds.
 */
class DecodeEnrichTest {

    private static final String R1 = "192.0.2.210";
    private static final long T0 = EXPORT_MILLIS;
    private static final IpfixEncoder ENCODER = new IpfixEncoder();
    private static final Template NAMES =
            new Template(
                    300,
                    List.of(
                            FieldSpecifier.of(10, 4),
                            FieldSpecifier.of(82, 0xffff),
                            FieldSpecifier.of(83, 0xffff)),
                    1);
    private static final Template FLOWS =
            new Template(256, IpfixEncoder.FLOW_TEMPLATE_IPV4.fields(), 0);

    /** Options template 310: ingressVRFID (scope), VRFname, as Cisco exports its VRF table. */
    private static final Template VRF_NAMES =
            new Template(
                    310, List.of(FieldSpecifier.of(234, 4), FieldSpecifier.of(236, 0xffff)), 1);

    /** Data template 320: addresses, bytes, packets, ingressVRFID, egressVRFID. */
    private static final Template VRF_FLOWS =
            new Template(
                    320,
                    List.of(
                            FieldSpecifier.of(8, 4),
                            FieldSpecifier.of(12, 4),
                            FieldSpecifier.of(1, 8),
                            FieldSpecifier.of(2, 8),
                            FieldSpecifier.of(234, 4),
                            FieldSpecifier.of(235, 4)),
                    0);

    private DecodeAndStatsHarness h;

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private static EnrichSettings enrich(int maxInterfaces) {
        return enrich(maxInterfaces, 16);
    }

    private static EnrichSettings enrich(int maxInterfaces, int maxVrfs) {
        return new EnrichSettings(
                null,
                null,
                1024,
                AsnOrder.EXPORTER_FIRST,
                null,
                16,
                maxInterfaces,
                maxVrfs,
                Duration.ofSeconds(30),
                null);
    }

    private static byte[] ipfix(Consumer<IpfixEncoder.Message> body) {
        ByteBuffer b = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = ENCODER.begin(b, 1, EXPORT_MILLIS / 1000);
        body.accept(m);
        return Arrays.copyOf(b.array(), m.finish());
    }

    private static byte[] names(long... ifIndexes) {
        return ipfix(
                m -> {
                    m.template(NAMES).data(300);
                    for (long i : ifIndexes) {
                        m.u32(i).varString("xe-0/0/" + i).varString("transit " + i).endRecord();
                    }
                });
    }

    private static byte[] flowData(boolean withTemplate, int n) {
        return ipfix(
                m -> {
                    if (withTemplate) {
                        m.template(FLOWS);
                    }
                    m.data(FLOWS.templateId());
                    for (FlowRecord r : flows(n, 2, 200)) {
                        IpfixEncoder.writeFlow(m, FLOWS, r);
                    }
                });
    }

    private void send(long received, byte[] payload) throws Exception {
        h.processElement1(new StreamRecord<>(datagram(R1, 4739, received, payload)));
    }

    private List<EnrichedFlow> enriched() {
        var q = h.getSideOutput(DecodeOutputs.ENRICHED);
        return q == null ? List.of() : q.stream().map(StreamRecord::getValue).toList();
    }

    private static void assertNamed(List<EnrichedFlow> out, int n) {
        assertThat(out).hasSize(n);
        for (EnrichedFlow e : out) {
            long in = e.flow().inputInterface();
            assertThat(e.context().in().name()).isEqualTo("xe-0/0/" + in);
            assertThat(e.context().in().description()).isEqualTo("transit " + in);
        }
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void flowsAreNamedFromDecodesOwnOptionsDataAlsoAfterARestore(boolean rocksDb) throws Exception {
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), rocksDb, null, enrich(16));
        h.setProcessingTime(1_000L);
        send(T0, names(0, 1, 2));
        send(T0 + 1, flowData(true, 3));
        assertThat(h.extractOutputValues()).hasSize(3);
        assertNamed(enriched(), 3);
        // The main output is the flows as decoded, the same ones.
        assertThat(enriched().stream().map(EnrichedFlow::flow).toList())
                .isEqualTo(h.extractOutputValues());
        assertThat(h.function().enrichment().optionsInterfaces()).isEqualTo(3);

        OperatorSubtaskState snapshot = h.snapshotDecode();
        h.close();
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), rocksDb, snapshot, enrich(16));
        h.setProcessingTime(2_000L);
        assertThat(h.function().enrichment().optionsInterfaces()).isEqualTo(3);
        send(T0 + 2, flowData(false, 4));
        assertNamed(enriched(), 4);
    }

    @Test
    void theNamesStayWithinTheEnrichmentsBound() throws Exception {
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), false, null, enrich(2));
        h.setProcessingTime(1_000L);
        send(T0, names(0, 1, 2, 3));
        assertThat(h.function().enrichment().optionsInterfaces()).isEqualTo(2);
        OperatorSubtaskState snapshot = h.snapshotDecode();
        h.close();
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), false, snapshot, enrich(2));
        assertThat(h.function().enrichment().optionsInterfaces()).isEqualTo(2);
    }

    private static byte[] vrfNames(long... vrfIds) {
        return ipfix(
                m -> {
                    m.template(VRF_NAMES).data(310);
                    for (long v : vrfIds) {
                        m.u32(v).varString("vrf-" + v).endRecord();
                    }
                });
    }

    private static byte[] vrfFlows(long[]... inOut) {
        return ipfix(
                m -> {
                    m.template(VRF_FLOWS).data(320);
                    for (long[] io : inOut) {
                        m.ipv4(IpAddress.parse("10.0.0.1"))
                                .ipv4(IpAddress.parse("10.0.0.2"))
                                .u64(100)
                                .u64(1)
                                .u32(io[0])
                                .u32(io[1])
                                .endRecord();
                    }
                });
    }

    private List<List<Object>> vrfsOfEnriched() {
        return enriched().stream()
                .map(
                        e ->
                                List.<Object>of(
                                        e.flow().inputVrfId(),
                                        e.context().inVrfName(),
                                        e.flow().outputVrfId(),
                                        e.context().outVrfName()))
                .toList();
    }

    @ParameterizedTest(name = "rocksDb={0}")
    @ValueSource(booleans = {false, true})
    void flowsCarryTheVrfNamesOfDecodesOptionsDataAlsoAfterARestore(boolean rocksDb)
            throws Exception {
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), rocksDb, null, enrich(16));
        h.setProcessingTime(1_000L);
        send(T0, vrfNames(1, 10, 4_000_000_001L));
        send(T0 + 1, vrfFlows(new long[] {10, 1}, new long[] {4_000_000_001L, 0}));
        assertThat(vrfsOfEnriched())
                .containsExactly(
                        List.of(10L, "vrf-10", 1L, "vrf-1"),
                        List.of(4_000_000_001L, "vrf-4000000001", 0L, ""));
        assertThat(h.function().enrichment().optionsVrfs()).isEqualTo(3);

        OperatorSubtaskState snapshot = h.snapshotDecode();
        h.close();
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), rocksDb, snapshot, enrich(16));
        h.setProcessingTime(2_000L);
        assertThat(h.function().enrichment().optionsVrfs()).isEqualTo(3);
        // A VRF id the options data never named has no name.
        send(T0 + 2, vrfFlows(new long[] {0, 10}, new long[] {77, 1}));
        assertThat(vrfsOfEnriched())
                .containsExactly(List.of(0L, "", 10L, "vrf-10"), List.of(77L, "", 1L, "vrf-1"));
    }

    @Test
    void theVrfNamesStayWithinTheirBound() throws Exception {
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), false, null, enrich(16, 2));
        h.setProcessingTime(1_000L);
        send(T0, vrfNames(1, 2, 3, 4));
        assertThat(h.function().enrichment().optionsVrfs()).isEqualTo(2);
        OperatorSubtaskState snapshot = h.snapshotDecode();
        h.close();
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), false, snapshot, enrich(16, 2));
        assertThat(h.function().enrichment().optionsVrfs()).isEqualTo(2);
    }

    @Test
    void withoutEnrichmentNothingGoesToTheEnrichedOutput() throws Exception {
        h = new DecodeAndStatsHarness(DecodeSettings.defaults(), false, null, null);
        h.setProcessingTime(1_000L);
        send(T0, names(0));
        send(T0 + 1, flowData(true, 2));
        assertThat(h.extractOutputValues()).hasSize(2);
        assertThat(enriched()).isEmpty();
        assertThat(h.function().enrichment()).isNull();
    }
}
