// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.codec.sflow.SflowEncoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.loadgen.emit.CollectingSink;
import io.flowhouse.loadgen.emit.DatagramEmitter;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import io.flowhouse.loadgen.report.RunSummary;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What loadgen sends, decoded by the production decoder, gives exactly the summary's totals and the
 * very flows the generator made (fields each protocol carries), for every protocol and option.
 */
class LoadgenRoundTripTest {

    private static final long START = 1_700_000_000_123L;

    @ParameterizedTest(name = "{0} sampling={1} ipv6={2} malformed={3} gaps={4}")
    @CsvSource({
        "v5,    1,  0.3, 0.0,  0.0",
        "v9,    1,  0.3, 0.0,  0.0",
        "ipfix, 1,  0.3, 0.0,  0.0",
        "mix,   1,  0.3, 0.0,  0.0",
        "v5,    64, 0.0, 0.0,  0.0",
        "v9,    64, 0.5, 0.0,  0.0",
        "ipfix, 64, 0.5, 0.0,  0.0",
        "mix,   16, 1.0, 0.05, 0.02",
        "ipfix, 1,  0.3, 0.1,  0.05",
        "v9,    1,  0.3, 0.1,  0.05",
        "v5,    1,  0.0, 0.1,  0.05",
        "sflow, 1,  0.3, 0.0,  0.0",
        "sflow, 64, 0.5, 0.0,  0.0",
        "sflow, 1,  0.3, 0.1,  0.05"
    })
    void decodedTotalsEqualTheSummary(
            String protocol, int sampling, double ipv6, double malformed, double gaps)
            throws Exception {
        TrafficProfile profile =
                TrafficProfile.defaults()
                        .withSamplingInterval(sampling)
                        .withIpv6Share(ipv6)
                        .withMalformedRatio(malformed)
                        .withGapRatio(gaps)
                        .withTemplateRefreshDatagrams(7);
        int exporters = 5;
        FlowGenerator gen = new FlowGenerator(profile, 99);
        List<SimulatedExporter> ex = new ArrayList<>();
        for (int i = 0; i < exporters; i++) {
            ExportProtocol p =
                    "mix".equals(protocol)
                            ? ExportProtocol.values()[i % 3]
                            : ExportProtocol.parse(protocol);
            ex.add(new SimulatedExporter(i, p, gen, 99, START));
        }
        CollectingSink sink = new CollectingSink();
        RunSummary summary =
                new DatagramEmitter(
                                ex,
                                sink,
                                new DatagramEmitter.Settings(
                                        DatagramEmitter.Unit.FLOWS, 20_000, 6_000, 0, false, START),
                                System::nanoTime,
                                () -> START,
                                null)
                        .run("", 99);
        assertThat(summary.flows()).isEqualTo(6_000);

        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        long flows = 0;
        long packets = 0;
        long bytes = 0;
        long malformedSeen = 0;
        long optionsSeen = 0;
        long gapsSeen = 0;
        Map<Integer, Long> nextSequence = new HashMap<>();
        for (CollectingSink.Sent s : sink.sent()) {
            ExporterKey key = new ExporterKey(IpAddress.parse("127.0.0.1"), 20_000 + s.exporter());
            DecodeResult r;
            try {
                r = decoder.decode(ByteBuffer.wrap(s.payload()), new DecodeContext(key, 0), cache);
            } catch (DecodeException e) {
                assertThat(s.datagram().malformed())
                        .as("only malformed datagrams fail: %s", e)
                        .isTrue();
                malformedSeen++;
                continue;
            }
            if (s.datagram().malformed()) {
                assertThat(r.records()).isEmpty();
                assertThat(r.problems()).isNotEmpty();
                malformedSeen++;
                continue;
            }
            assertThat(r.problems()).as("problems in a good datagram").isEmpty();
            List<FlowRecord> expected = s.datagram().flows();
            assertThat(r.records()).hasSameSizeAs(expected);
            for (int i = 0; i < expected.size(); i++) {
                assertSameFlow(r.records().get(i), expected.get(i), r.version());
            }
            Long want = nextSequence.get(s.exporter());
            if (want != null && want != r.sequenceNumber()) {
                gapsSeen++;
            }
            nextSequence.put(s.exporter(), (r.sequenceNumber() + r.sequenceUnits()) & 0xffff_ffffL);
            optionsSeen += r.optionsRecords();
            flows += r.records().size();
            for (FlowRecord f : r.records()) {
                packets += f.packets();
                bytes += f.bytes();
            }
        }
        assertThat(flows).isEqualTo(summary.flows());
        assertThat(packets).isEqualTo(summary.packets());
        assertThat(bytes).isEqualTo(summary.bytes());
        assertThat(malformedSeen).isEqualTo(summary.malformed());
        assertThat(optionsSeen).isEqualTo(summary.optionsRecords());
        assertThat(gapsSeen).isEqualTo(summary.gaps());
        assertThat(summary.datagrams() + summary.malformed()).isEqualTo(sink.sent().size());
        if (malformed > 0) {
            assertThat(summary.malformed()).isPositive();
        }
        if (gaps > 0) {
            assertThat(summary.gaps()).isPositive();
        }
    }

    private static void assertSameFlow(FlowRecord got, FlowRecord want, int version) {
        if (version == FlowRecord.VERSION_SFLOW5) {
            assertSameSample(got, want);
            return;
        }
        assertThat(got.srcAddr()).isEqualTo(want.srcAddr());
        assertThat(got.dstAddr()).isEqualTo(want.dstAddr());
        assertThat(got.nextHop()).isEqualTo(want.nextHop());
        assertThat(got.srcPort()).isEqualTo(want.srcPort());
        assertThat(got.dstPort()).isEqualTo(want.dstPort());
        assertThat(got.protocol()).isEqualTo(want.protocol());
        assertThat(got.tcpFlags()).isEqualTo(want.tcpFlags());
        assertThat(got.tos()).isEqualTo(want.tos());
        assertThat(got.bytes()).isEqualTo(want.bytes());
        assertThat(got.packets()).isEqualTo(want.packets());
        assertThat(got.srcAs()).isEqualTo(want.srcAs());
        assertThat(got.dstAs()).isEqualTo(want.dstAs());
        assertThat(got.srcPrefixLen()).isEqualTo(want.srcPrefixLen());
        assertThat(got.dstPrefixLen()).isEqualTo(want.dstPrefixLen());
        assertThat(got.inputInterface()).isEqualTo(want.inputInterface());
        assertThat(got.outputInterface()).isEqualTo(want.outputInterface());
        assertThat(got.flowStartMillis()).as("start").isEqualTo(want.flowStartMillis());
        assertThat(got.flowEndMillis()).as("end").isEqualTo(want.flowEndMillis());
        assertThat(got.samplingRate()).as("sampling rate").isEqualTo(want.samplingRate());
        assertThat(got.ipVersion()).isEqualTo(want.ipVersion());
        if (version == 10) {
            assertThat(got.flowEndReason()).isEqualTo(want.flowEndReason());
        }
    }

    /**
     * sFlow counter samples every second per interface over 5 virtual seconds: each decoded counter
     * sample holds what the agent's flow samples before it add up to on that interface, every
     * interface of every agent is polled on schedule, and the decoded sums equal the summary's.
     */
    @ParameterizedTest(name = "sampling={0}")
    @CsvSource({"1", "100"})
    void sflowCounterSamplesFollowTheFlowSamples(int sampling) throws Exception {
        TrafficProfile profile =
                TrafficProfile.defaults()
                        .withSamplingInterval(sampling)
                        .withCounterIntervalMillis(1_000);
        int exporters = 3;
        FlowGenerator gen = new FlowGenerator(profile, 7);
        List<SimulatedExporter> ex = new ArrayList<>();
        for (int i = 0; i < exporters; i++) {
            ex.add(new SimulatedExporter(i, ExportProtocol.SFLOW, gen, 7, START));
        }
        CollectingSink sink = new CollectingSink();
        RunSummary summary =
                new DatagramEmitter(
                                ex,
                                sink,
                                new DatagramEmitter.Settings(
                                        DatagramEmitter.Unit.FLOWS,
                                        20_000,
                                        100_000,
                                        0,
                                        false,
                                        START),
                                System::nanoTime,
                                () -> START,
                                null)
                        .run("", 7);
        NetflowDecoder decoder = new NetflowDecoder();
        long[][] in = new long[exporters][11];
        long[][] out = new long[exporters][11];
        long[][] inPackets = new long[exporters][11];
        long[][] polls = new long[exporters][11];
        CounterTotals decoded = CounterTotals.NONE;
        for (CollectingSink.Sent s : sink.sent()) {
            ExporterKey key = new ExporterKey(IpAddress.parse("127.0.0.1"), 20_000 + s.exporter());
            DecodeResult r =
                    decoder.decode(
                            ByteBuffer.wrap(s.payload()),
                            new DecodeContext(key, 0),
                            new InMemoryTemplateCache());
            assertThat(r.problems()).isEmpty();
            int e = s.exporter();
            // The counters were read before this datagram's flow samples were counted.
            for (InterfaceCounters c : r.sflow().counters()) {
                int i = (int) c.ifIndex();
                assertThat(c.generic().ifInOctets()).isEqualTo(((long) i << 32) + in[e][i]);
                assertThat(c.generic().ifOutOctets()).isEqualTo(((long) i << 32) + out[e][i]);
                assertThat(c.generic().ifInUcastPkts()).isEqualTo(inPackets[e][i]);
                assertThat(c.generic().ifInErrors()).isEqualTo(inPackets[e][i] / 10_000);
                assertThat(c.ethernet().dot3StatsFCSErrors()).isEqualTo(c.generic().ifInErrors());
                assertThat(c.generic().ifSpeed())
                        .isEqualTo(i <= 2 ? 10_000_000_000L : 1_000_000_000L);
                polls[e][i]++;
                assertThat(c.sampleSequence()).isEqualTo(polls[e][i]);
                decoded =
                        decoded.plus(
                                new SflowEncoder.InterfaceSample(
                                        c.sampleSequence(),
                                        c.sourceIdClass(),
                                        c.sourceIdIndex(),
                                        c.generic(),
                                        c.ethernet()));
            }
            for (FlowRecord f : r.records()) {
                in[e][(int) f.inputInterface()] += f.bytes() * f.samplingRate();
                out[e][(int) f.outputInterface()] += f.bytes() * f.samplingRate();
                inPackets[e][(int) f.inputInterface()] += f.samplingRate();
            }
        }
        // 5 virtual seconds: every interface polled 4 or 5 times (the first polls are spread).
        for (int e = 0; e < exporters; e++) {
            for (int i = 1; i <= 10; i++) {
                assertThat(polls[e][i]).as("polls of %d/%d", e, i).isBetween(4L, 5L);
            }
        }
        assertThat(summary.counters()).isEqualTo(decoded);
        assertThat(summary.counters().samples()).isBetween(120L, 150L);
        assertThat(summary.toJson())
                .contains("\"counter_samples\": " + summary.counters().samples() + ",");
    }

    /** An sFlow sample carries the packet's header, interfaces and rate; no times, AS or masks. */
    private static void assertSameSample(FlowRecord got, FlowRecord want) {
        assertThat(got.srcAddr()).isEqualTo(want.srcAddr());
        assertThat(got.dstAddr()).isEqualTo(want.dstAddr());
        assertThat(got.srcPort()).isEqualTo(want.srcPort());
        assertThat(got.dstPort()).isEqualTo(want.dstPort());
        assertThat(got.protocol()).isEqualTo(want.protocol());
        assertThat(got.tos()).isEqualTo(want.tos());
        assertThat(got.bytes()).isEqualTo(want.bytes());
        assertThat(got.packets()).isEqualTo(1).isEqualTo(want.packets());
        assertThat(got.inputInterface()).isEqualTo(want.inputInterface());
        assertThat(got.outputInterface()).isEqualTo(want.outputInterface());
        assertThat(got.samplingRate()).as("sampling rate").isEqualTo(want.samplingRate());
        assertThat(got.ipVersion()).isEqualTo(want.ipVersion());
    }
}
