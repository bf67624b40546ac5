// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static io.flowhouse.jobs.decode.V9Datagrams.EXPORT_MILLIS;
import static io.flowhouse.jobs.decode.V9Datagrams.datagram;
import static io.flowhouse.jobs.decode.V9Datagrams.flows;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
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

    private DecodeAndStatsHarness h;

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private static EnrichSettings enrich(int maxInterfaces) {
        return new EnrichSettings(
                null,
                null,
                1024,
                AsnOrder.EXPORTER_FIRST,
                null,
                16,
                maxInterfaces,
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
