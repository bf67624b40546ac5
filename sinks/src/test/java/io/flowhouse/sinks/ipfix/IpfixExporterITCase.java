// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exporter against a UDP collector on 127.0.0.1 that keeps the datagrams: every capture's flows
 * come back through the codec's decoder, with continuous sequence numbers, templates where RFC 7011
 * §8.4 wants them and messages within the size limit.
 */
class IpfixExporterITCase {

    static final int V4_LEN = IpfixEncoder.recordLength(IpfixEncoder.FLOW_TEMPLATE_IPV4);
    static final int V6_LEN = IpfixEncoder.recordLength(IpfixEncoder.FLOW_TEMPLATE_IPV6);
    static final int OPT_LEN = 16; // selectorId u64, samplingPacketInterval, samplingPacketSpace

    static Stream<CaptureFlows.Capture> captures() {
        return CaptureFlows.ALL.stream();
    }

    /** Uniflows as a collector must see them: biflows split into forward and swapped reverse. */
    static List<FlowRecord> expectedUniflows(List<FlowRecord> flows) {
        List<FlowRecord> out = new ArrayList<>();
        for (FlowRecord f : flows) {
            if (f.reverseBytes() == 0 && f.reversePackets() == 0) {
                out.add(f);
                continue;
            }
            if (f.bytes() != 0 || f.packets() != 0) {
                out.add(f.toBuilder().reverseBytes(0).reversePackets(0).build());
            }
            out.add(
                    f.toBuilder()
                            .srcAddr(f.dstAddr())
                            .dstAddr(f.srcAddr())
                            .srcPort(f.dstPort())
                            .dstPort(f.srcPort())
                            .srcPrefixLen(f.dstPrefixLen())
                            .dstPrefixLen(f.srcPrefixLen())
                            .srcMac(f.dstMac())
                            .dstMac(f.srcMac())
                            .srcAs(f.dstAs())
                            .dstAs(f.srcAs())
                            .inputInterface(f.outputInterface())
                            .outputInterface(f.inputInterface())
                            .bytes(f.reverseBytes())
                            .packets(f.reversePackets())
                            .reverseBytes(0)
                            .reversePackets(0)
                            .build());
        }
        return out;
    }

    static List<UdpTap.Datagram> exportOverUdp(
            IpfixExporterOptions.Builder options, UdpTap tap, List<FlowRecord> flows, int records)
            throws Exception {
        IpfixExporterOptions o = options.target("127.0.0.1:" + tap.port()).build();
        IpfixExporter.Metrics m;
        try (IpfixExporter exporter = new IpfixExporter(o.targets().get(0), o)) {
            for (FlowRecord f : flows) {
                exporter.export(f);
            }
            exporter.flush();
            m = exporter.metrics();
        }
        assertThat(m.recordsDropped()).isZero();
        assertThat(m.recordsSent()).isEqualTo(records);
        assertThat(m.flowsIn()).isEqualTo(flows.size());
        long messages = m.messagesSent();
        return tap.awaitUntil(d -> d.size() >= messages, Duration.ofSeconds(30));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void everyFlowComesBackThroughTheDecoder(CaptureFlows.Capture capture) throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(capture);
        List<FlowRecord> expected = expectedUniflows(flows);
        try (UdpTap tap = new UdpTap()) {
            List<UdpTap.Datagram> got =
                    exportOverUdp(IpfixExporterOptions.builder(), tap, flows, expected.size());
            List<IpfixMessages.Summary> summaries = new ArrayList<>();
            for (UdpTap.Datagram d : got) {
                assertThat(d.payload().length).isLessThanOrEqualTo(1400);
                summaries.add(IpfixMessages.summarize(d.payload(), V4_LEN, V6_LEN, OPT_LEN));
            }
            IpfixMessages.assertSequenceContinuity(summaries);
            assertThat(summaries.get(0).hasTemplates()).isTrue();
            assertThat(summaries.get(0).hasOptionsTemplate()).isTrue();
            assertThat(summaries.stream().mapToInt(IpfixMessages.Summary::optionsRecords).sum())
                    .as("a sampling options record per domain and rate")
                    .isPositive();
            List<FlowRecord> back = IpfixMessages.decode(got);
            assertThat(back.stream().map(IpfixMessages::carried).toList())
                    .containsExactlyInAnyOrderElementsOf(
                            expected.stream().map(IpfixMessages::carried).toList());
            assertThat(CaptureFlows.packets(back)).isEqualTo(capture.packets());
            assertThat(CaptureFlows.bytes(back)).isEqualTo(capture.bytes());
        }
    }

    @Test
    void biflowsKeepTheirReverseCountersInRfc5103Mode() throws Exception {
        CaptureFlows.Capture capture = CaptureFlows.ALL.get(7);
        assertThat(capture.biflows()).isTrue();
        List<FlowRecord> flows = CaptureFlows.decode(capture);
        try (UdpTap tap = new UdpTap()) {
            List<UdpTap.Datagram> got =
                    exportOverUdp(
                            IpfixExporterOptions.builder()
                                    .biflowMode(IpfixExporterOptions.BiflowMode.RFC5103),
                            tap,
                            flows,
                            flows.size());
            List<FlowRecord> back = IpfixMessages.decode(got);
            assertThat(back.stream().map(IpfixMessages::carried).toList())
                    .containsExactlyInAnyOrderElementsOf(
                            flows.stream().map(IpfixMessages::carried).toList());
        }
    }

    @Test
    void pathMtuUnknownMeans512ByteMessages() throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(CaptureFlows.ALL.get(5));
        try (UdpTap tap = new UdpTap()) {
            List<UdpTap.Datagram> got =
                    exportOverUdp(
                            IpfixExporterOptions.builder().maxMessageBytes(512),
                            tap,
                            flows,
                            flows.size());
            for (UdpTap.Datagram d : got) {
                assertThat(d.payload().length).isLessThanOrEqualTo(512);
            }
            assertThat(IpfixMessages.decode(got)).hasSize(flows.size());
        }
    }

    @Test
    void templatesAreRefreshedEveryNMessagesOverUdp() throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(CaptureFlows.ALL.get(3));
        try (UdpTap tap = new UdpTap()) {
            List<UdpTap.Datagram> got =
                    exportOverUdp(
                            IpfixExporterOptions.builder()
                                    .observationDomainId(77)
                                    .templateRefreshMessages(5),
                            tap,
                            flows,
                            flows.size());
            for (int i = 0; i < got.size(); i++) {
                IpfixMessages.Summary s =
                        IpfixMessages.summarize(got.get(i).payload(), V4_LEN, V6_LEN, OPT_LEN);
                assertThat(s.domain()).isEqualTo(77);
                assertThat(s.hasTemplates()).as("message %d", i).isEqualTo(i % 5 == 0);
            }
        }
    }

    @Test
    void domainsPastTheLimitAreSentAndForgotten() throws Exception {
        List<FlowRecord> base = CaptureFlows.decode(CaptureFlows.ALL.get(6)).subList(0, 30);
        List<FlowRecord> flows = new ArrayList<>();
        for (int i = 0; i < base.size(); i++) {
            flows.add(base.get(i).toBuilder().observationDomainId(1 + i % 3).build());
        }
        try (UdpTap tap = new UdpTap()) {
            IpfixExporterOptions o =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + tap.port())
                            .biflowMode(IpfixExporterOptions.BiflowMode.RFC5103)
                            .maxDomains(2)
                            .build();
            IpfixExporter.Metrics m;
            try (IpfixExporter exporter = new IpfixExporter(o.targets().get(0), o)) {
                for (FlowRecord f : flows) {
                    exporter.export(f);
                }
                exporter.flush();
                m = exporter.metrics();
            }
            // Three domains in turn with room for two: every new one evicts the eldest.
            assertThat(m.domains()).isEqualTo(2);
            assertThat(m.domainsEvicted()).isEqualTo(flows.size() - 2);
            assertThat(m.recordsSent()).isEqualTo(flows.size());
            assertThat(m.recordsDropped()).isZero();
            long messages = m.messagesSent();
            List<UdpTap.Datagram> got =
                    tap.awaitUntil(d -> d.size() >= messages, Duration.ofSeconds(30));
            assertThat(IpfixMessages.decode(got).stream().map(IpfixMessages::carried).toList())
                    .as("an evicted domain's message went out first")
                    .containsExactlyInAnyOrderElementsOf(
                            flows.stream().map(IpfixMessages::carried).toList());
            for (UdpTap.Datagram d : got) {
                IpfixMessages.Summary s =
                        IpfixMessages.summarize(d.payload(), V4_LEN, V6_LEN, OPT_LEN);
                assertThat(s.hasTemplates()).as("a returning domain starts over").isTrue();
                assertThat(s.sequence()).isZero();
            }
        }
    }

    @Test
    void idleDomainsGetTemplatesOnTheTimer() throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(CaptureFlows.ALL.get(6)).subList(0, 10);
        try (UdpTap tap = new UdpTap()) {
            IpfixExporterOptions o =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + tap.port())
                            .templateRefreshInterval(Duration.ofMillis(300))
                            .build();
            try (IpfixExporter exporter = new IpfixExporter(o.targets().get(0), o)) {
                for (FlowRecord f : flows) {
                    exporter.export(f);
                }
                exporter.flush();
                // With no more flows, the timer alone sends template-only messages.
                List<UdpTap.Datagram> got =
                        tap.awaitUntil(d -> d.size() >= 3, Duration.ofSeconds(30));
                IpfixMessages.Summary last =
                        IpfixMessages.summarize(
                                got.get(got.size() - 1).payload(), V4_LEN, V6_LEN, OPT_LEN);
                assertThat(last.hasTemplates()).isTrue();
                assertThat(last.dataRecords()).isZero();
            }
        }
    }
}
