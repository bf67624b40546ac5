// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Both sFlow captures decode, through the codec's facade, to the totals of shared/testdata's README
 * (the packet trace, and tshark, goflow2, sfcapd and sfacctd agreeing on them): datagrams, flow and
 * counter samples, unscaled and scaled packets and bytes.
 */
class SflowGroundTruthTest {

    /** Everything one capture decoded to. */
    record Totals(
            int datagrams,
            long flowSamples,
            long counterSamples,
            long packets,
            long bytes,
            long scaledPackets,
            long scaledBytes,
            Map<DecodeProblem.Kind, Integer> problems,
            Map<String, Long> mix) {}

    static Totals decode(String file) throws Exception {
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        long flows = 0;
        long counters = 0;
        long packets = 0;
        long bytes = 0;
        long scaledPackets = 0;
        long scaledBytes = 0;
        Map<DecodeProblem.Kind, Integer> problems = new EnumMap<>(DecodeProblem.Kind.class);
        Map<String, Long> mix = new TreeMap<>();
        for (CaptureDatagrams.Datagram d : ds) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), cache);
            assertThat(r.version()).isEqualTo(FlowRecord.VERSION_SFLOW5);
            assertThat(r.sflow()).isNotNull();
            flows += r.sflow().flowSamples();
            counters += r.sflow().counterSamples();
            assertThat(r.records()).hasSize(r.sflow().flowSamples());
            for (FlowRecord f : r.records()) {
                packets += f.packets();
                bytes += f.bytes();
                scaledPackets += f.packets() * f.samplingRate();
                scaledBytes += f.bytes() * f.samplingRate();
                mix.merge("ipv" + f.ipVersion(), 1L, Long::sum);
                mix.merge("proto" + f.protocol(), 1L, Long::sum);
                mix.merge("vlan" + f.vlanId(), 1L, Long::sum);
            }
            for (DecodeProblem p : r.problems()) {
                problems.merge(p.kind(), 1, Integer::sum);
            }
        }
        return new Totals(
                ds.size(),
                flows,
                counters,
                packets,
                bytes,
                scaledPackets,
                scaledBytes,
                problems,
                mix);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "sflow-pmacct-rate1.pcap.gz, 5770, 42173, 3, 31803431, 42173, 31803431",
        "sflow-ovs-rate10.pcap, 588, 4215, 9, 3231726, 42150, 32317260",
    })
    void capturesDecodeToGroundTruth(
            String file,
            int datagrams,
            long flowSamples,
            long counterSamples,
            long bytes,
            long scaledPackets,
            long scaledBytes)
            throws Exception {
        Totals t = decode(file);
        assertThat(t.datagrams()).as("datagrams").isEqualTo(datagrams);
        assertThat(t.flowSamples()).as("flow samples").isEqualTo(flowSamples);
        assertThat(t.counterSamples()).as("counter samples").isEqualTo(counterSamples);
        assertThat(t.packets()).as("packets, unscaled: one per sample").isEqualTo(flowSamples);
        assertThat(t.bytes()).as("bytes, unscaled").isEqualTo(bytes);
        assertThat(t.scaledPackets()).as("packets x rate").isEqualTo(scaledPackets);
        assertThat(t.scaledBytes()).as("bytes x rate").isEqualTo(scaledBytes);
        // OVS sends counter records few decoders know (1004, 1005, 2203, 2207): skipped, counted.
        assertThat(t.problems().keySet())
                .as("problems " + t.problems())
                .isSubsetOf(DecodeProblem.Kind.UNKNOWN_RECORD_FORMAT);
        System.out.println(file + ": " + t);
    }

    @Test
    void pmacctSampledHeadersGiveTheTracesMix() throws Exception {
        // shared/testdata/README.md, "sFlow v5": from the sampled headers of the rate-1 file.
        Map<String, Long> mix = decode("sflow-pmacct-rate1.pcap.gz").mix();
        assertThat(mix)
                .containsEntry("ipv4", 30_012L)
                .containsEntry("ipv6", 12_161L)
                .containsEntry("proto6", 34_984L)
                .containsEntry("proto17", 5_198L)
                .containsEntry("proto1", 876L)
                .containsEntry("proto58", 406L)
                .containsEntry("proto47", 386L)
                .containsEntry("proto50", 323L)
                .containsEntry("vlan100", 3_791L)
                .containsEntry("vlan200", 4_378L)
                .containsEntry("vlan0", 34_004L);
    }

    @Test
    void pmacctSequencesAndPoolsCountEveryPacket() throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        long expectedSample = 1;
        long expectedDatagram = 1;
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("sflow-pmacct-rate1.pcap.gz")) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), cache);
            assertThat(r.sflow().agentAddress()).isEqualTo(IpAddress.parse("192.0.2.1"));
            assertThat(r.sflow().subAgentId()).isEqualTo(1L);
            assertThat(r.observationDomainId()).isEqualTo(1L);
            assertThat(r.sequenceNumber()).isEqualTo(expectedDatagram++);
            assertThat(r.sequenceUnits()).isEqualTo(1L);
            for (FlowRecord f : r.records()) {
                assertThat(f.sflow().sampleSequence()).isEqualTo(expectedSample);
                assertThat(f.sflow().samplePool()).isEqualTo(expectedSample);
                assertThat(f.sflow().drops()).isZero();
                assertThat(f.sflow().sourceIdClass()).isZero();
                assertThat(f.sflow().sourceIdIndex()).isEqualTo(1L);
                assertThat(f.sflow().stripped()).isEqualTo(4L);
                assertThat(f.sflow().datagramSequence()).isEqualTo(r.sequenceNumber());
                assertThat(f.inputInterface()).isEqualTo(3L);
                assertThat(f.outputInterface()).isEqualTo(0x3fff_ffffL);
                expectedSample++;
            }
        }
        assertThat(expectedSample - 1).isEqualTo(42_173L);
    }
}
