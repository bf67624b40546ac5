// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeProblem.Kind;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.MalformedSetException;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.TruncatedMessageException;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-made and mutated datagrams: every structure, every length check, never a foreign throw. */
class SflowDecoderTest {

    private static final DecodeContext CTX =
            new DecodeContext(
                    new ExporterKey(IpAddress.parse("127.0.0.1"), 40000), 1_700_000_000_000L);

    private static final int AGENT = 0xc0000201; // 192.0.2.1

    private static DecodeResult decode(byte[] b) throws DecodeException {
        return new SflowDecoder().decode(ByteBuffer.wrap(b), CTX);
    }

    private static DecodeResult decode(SflowBytes b) throws DecodeException {
        return decode(b.toBytes());
    }

    private static List<Kind> kinds(DecodeResult r) {
        return r.problems().stream().map(DecodeProblem::kind).toList();
    }

    /** Ethernet + 802.1Q 100 + IPv4 TCP 10.0.0.1:1234 -> 10.0.0.2:80, SYN, DSCP 46, cut at 58. */
    private static final byte[] TCP_FRAME =
            HexFormat.of()
                    .parseHex(
                            "020000000002"
                                    + "020000000001"
                                    + "8100"
                                    + "0064"
                                    + "0800"
                                    + "45b8003c00000000"
                                    + "4006"
                                    + "0000"
                                    + "0a000001"
                                    + "0a000002"
                                    + "04d20050"
                                    + "00000000"
                                    + "00000000"
                                    + "5002"
                                    + "ffff"
                                    + "00000000");

    private static SflowBytes sampledHeader(int protocol, long frameLength, byte[] header) {
        return SflowBytes.of()
                .u32(protocol)
                .u32(frameLength)
                .u32(4)
                .u32(header.length)
                .bytes(header);
    }

    @Test
    void compactFlowSampleWithHeaderAndSwitch() throws Exception {
        SflowBytes sample =
                SflowBytes.of()
                        .u32(77) // sequence
                        .u32(3) // source 0:3
                        .u32(512) // rate
                        .u32(77 * 512) // pool
                        .u32(2) // drops
                        .u32(3) // input ifIndex 3
                        .u32(0x3fff_ffffL) // output: the agent itself
                        .u32(2)
                        .element(1, sampledHeader(1, 1518, TCP_FRAME))
                        .element(1001, SflowBytes.of().u32(100).u32(5).u32(200).u32(6));
        DecodeResult r = decode(SflowBytes.header(AGENT, 1, 9, 60_000, 1).element(1, sample));
        assertThat(r.problems()).isEmpty();
        assertThat(r.version()).isEqualTo(FlowRecord.VERSION_SFLOW5);
        assertThat(r.sequenceNumber()).isEqualTo(9L);
        assertThat(r.observationDomainId()).isEqualTo(1L);
        assertThat(r.sysUptimeMillis()).isEqualTo(60_000L);
        assertThat(r.sflow().agentAddress()).isEqualTo(IpAddress.parse("192.0.2.1"));
        assertThat(r.sflow().flowSamples()).isEqualTo(1);
        FlowRecord f = r.records().get(0);
        assertThat(f.exporterAddress()).isEqualTo(IpAddress.parse("127.0.0.1"));
        assertThat(f.exporterPort()).isEqualTo(40000);
        assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("10.0.0.1"));
        assertThat(f.dstAddr()).isEqualTo(IpAddress.parse("10.0.0.2"));
        assertThat(f.srcPort()).isEqualTo(1234);
        assertThat(f.dstPort()).isEqualTo(80);
        assertThat(f.protocol()).isEqualTo(6);
        assertThat(f.tcpFlags()).isEqualTo(2);
        assertThat(f.tos()).isEqualTo(0xb8);
        assertThat(f.bytes()).isEqualTo(1518L);
        assertThat(f.packets()).isEqualTo(1L);
        assertThat(f.samplingRate()).isEqualTo(512L);
        assertThat(f.vlanId()).isEqualTo(100);
        assertThat(f.postVlanId()).isEqualTo(200);
        assertThat(f.srcMac()).isEqualTo(0x020000000001L);
        assertThat(f.dstMac()).isEqualTo(0x020000000002L);
        assertThat(f.inputInterface()).isEqualTo(3L);
        assertThat(f.outputInterface()).isEqualTo(0x3fff_ffffL);
        assertThat(f.flowStartMillis()).isEqualTo(CTX.receivedMillis());
        SflowFields s = f.sflow();
        assertThat(s.sampleSequence()).isEqualTo(77L);
        assertThat(s.sourceIdClass()).isZero();
        assertThat(s.sourceIdIndex()).isEqualTo(3L);
        assertThat(s.samplePool()).isEqualTo(77L * 512);
        assertThat(s.drops()).isEqualTo(2L);
        assertThat(s.stripped()).isEqualTo(4L);
        assertThat(s.srcPriority()).isEqualTo(5);
        assertThat(s.dstPriority()).isEqualTo(6);
        assertThat(s.subAgentId()).isEqualTo(1L);
        assertThat(s.datagramSequence()).isEqualTo(9L);
        assertThat(s.uptimeMillis()).isEqualTo(60_000L);
    }

    @Test
    void expandedFlowSampleWithAgentDecodedRecordsAndRouting() throws Exception {
        byte[] v6agent = v6("2001:db8::1");
        SflowBytes gateway =
                SflowBytes.of()
                        .u32(1)
                        .u32(0xc6336401L) // BGP next hop 198.51.100.1
                        .u32(64500) // router AS
                        .u32(0) // source AS: none, so the router's
                        .u32(64501) // source peer AS
                        .u32(2) // two path segments
                        .u32(2)
                        .u32(2)
                        .u32(64510)
                        .u32(64511)
                        .u32(1)
                        .u32(1)
                        .u32(64999)
                        .u32(1) // one community
                        .u32(0xfde80001L)
                        .u32(100); // localpref
        SflowBytes sample =
                SflowBytes.of()
                        .u32(5) // sequence
                        .u32(2) // source type 2
                        .u32(0x0100_0000L) // source index beyond 24 bits
                        .u32(1000)
                        .u32(5000)
                        .u32(0)
                        .u32(0) // input format ifIndex
                        .u32(0x4000_0000L) // input ifIndex beyond 30 bits
                        .u32(2) // output format: multiple
                        .u32(3) // three interfaces
                        .u32(6)
                        .element(3, ipv4Record())
                        .element(2, ethernetRecord())
                        .element(1002, SflowBytes.of().u32(1).u32(0xc0000202L).u32(24).u32(16))
                        .element(1003, gateway)
                        .element(1004, SflowBytes.of().u32(0).u32(0)) // extended_user: skipped
                        .element(7 << 12 | 1, SflowBytes.of().u32(1)); // enterprise 7: skipped
        SflowBytes d =
                SflowBytes.of()
                        .u32(5)
                        .u32(2)
                        .bytes(v6agent)
                        .u32(0)
                        .u32(1)
                        .u32(0)
                        .u32(2)
                        .element(5, SflowBytes.of().u32(1).u32(2)) // discard sample: skipped
                        .element(3, sample);
        DecodeResult r = decode(d);
        assertThat(r.sflow().agentAddress()).isEqualTo(IpAddress.parse("2001:db8::1"));
        assertThat(r.sflow().unknownSamples()).isEqualTo(1);
        assertThat(r.sflow().unknownRecords()).isEqualTo(2);
        assertThat(kinds(r))
                .containsExactly(Kind.UNKNOWN_SAMPLE_FORMAT, Kind.UNKNOWN_RECORD_FORMAT);
        assertThat(r.problems().get(1).message()).contains("2 in this datagram");
        FlowRecord f = r.records().get(0);
        assertThat(f.ipVersion()).isEqualTo(4);
        assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("10.1.1.1"));
        assertThat(f.dstAddr()).isEqualTo(IpAddress.parse("10.2.2.2"));
        assertThat(f.srcPort()).isEqualTo(53);
        assertThat(f.dstPort()).isEqualTo(40000);
        assertThat(f.protocol()).isEqualTo(17);
        assertThat(f.tos()).isEqualTo(0x28);
        assertThat(f.bytes())
                .as("the Ethernet record's length: no sampled header")
                .isEqualTo(1000L);
        assertThat(f.srcMac()).isEqualTo(0x0a0b0c0d0e0fL);
        assertThat(f.nextHop()).isEqualTo(IpAddress.parse("192.0.2.2"));
        assertThat(f.srcPrefixLen()).isEqualTo(24);
        assertThat(f.dstPrefixLen()).isEqualTo(16);
        assertThat(f.srcAs()).as("no source AS: the router's").isEqualTo(64500L);
        assertThat(f.dstAs()).as("last AS of the path").isEqualTo(64999L);
        assertThat(f.inputInterface()).isEqualTo(0x4000_0000L);
        assertThat(f.outputInterface()).as("multiple: no single ifIndex").isZero();
        SflowFields s = f.sflow();
        assertThat(s.sourceIdClass()).isEqualTo(2);
        assertThat(s.sourceIdIndex()).isEqualTo(0x0100_0000L);
        assertThat(s.outputFormat()).isEqualTo(SflowFields.INTERFACE_MULTIPLE);
        assertThat(s.outputValue()).isEqualTo(3L);
        assertThat(s.bgpNextHop()).isEqualTo(IpAddress.parse("198.51.100.1"));
        assertThat(s.gatewayAs()).isEqualTo(64500L);
        assertThat(s.srcPeerAs()).isEqualTo(64501L);
    }

    private static SflowBytes ipv4Record() {
        return SflowBytes.of()
                .u32(1000)
                .u32(17)
                .u32(0x0a010101L)
                .u32(0x0a020202L)
                .u32(53)
                .u32(40000)
                .u32(0)
                .u32(0x28);
    }

    private static SflowBytes ethernetRecord() {
        return SflowBytes.of()
                .u32(1000)
                .bytes(HexFormat.of().parseHex("0a0b0c0d0e0f0000"))
                .bytes(HexFormat.of().parseHex("0102030405060000"))
                .u32(0x0800);
    }

    private static byte[] v6(String a) {
        IpAddress ip = IpAddress.parse(a);
        return ByteBuffer.allocate(16).putLong(ip.hi()).putLong(ip.lo()).array();
    }

    @Test
    void compactInterfaceFormats() throws Exception {
        SflowBytes sample =
                SflowBytes.of()
                        .u32(1)
                        .u32(0x0200_03e8L) // source 2:1000
                        .u32(10)
                        .u32(10)
                        .u32(0)
                        .u32(0x4000_0000L | 257) // input: discarded, TTL exceeded
                        .u32(0x8000_0000L) // output: multiple, number unknown
                        .u32(0);
        FlowRecord f =
                decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, sample)).records().get(0);
        assertThat(f.inputInterface()).isZero();
        assertThat(f.outputInterface()).isZero();
        assertThat(f.sflow().inputFormat()).isEqualTo(SflowFields.INTERFACE_DISCARDED);
        assertThat(f.sflow().inputValue()).isEqualTo(257L);
        assertThat(f.sflow().outputFormat()).isEqualTo(SflowFields.INTERFACE_MULTIPLE);
        assertThat(f.sflow().outputValue()).isZero();
        assertThat(f.sflow().sourceIdClass()).isEqualTo(2);
        assertThat(f.sflow().sourceIdIndex()).isEqualTo(1000L);
        assertThat(f.bytes()).as("no record: nothing sampled to count").isZero();
        assertThat(f.ipVersion()).isZero();
        assertThat(f.srcAddr()).isEqualTo(IpAddress.UNSPECIFIED);
    }

    @Test
    void countersSampleExpanded() throws Exception {
        SflowBytes generic =
                SflowBytes.of()
                        .u32(7)
                        .u32(6)
                        .u64(10_000_000_000L)
                        .u32(1)
                        .u32(3)
                        .u64(0xffff_ffff_ffff_fff0L)
                        .u32(1)
                        .u32(2)
                        .u32(3)
                        .u32(4)
                        .u32(5)
                        .u32(6)
                        .u64(7)
                        .u32(8)
                        .u32(9)
                        .u32(10)
                        .u32(11)
                        .u32(12)
                        .u32(0);
        SflowBytes ethernet = SflowBytes.of();
        for (int i = 1; i <= 13; i++) {
            ethernet.u32(0xffff_ff00L + i);
        }
        SflowBytes sample =
                SflowBytes.of()
                        .u32(42)
                        .u32(0)
                        .u32(7)
                        .u32(3)
                        .element(2, ethernet)
                        .element(2203, SflowBytes.of().u32(1).u32(2))
                        .element(1, generic);
        DecodeResult r = decode(SflowBytes.header(AGENT, 3, 2, 5_000, 1).element(4, sample));
        assertThat(r.records()).isEmpty();
        assertThat(r.sflow().counterSamples()).isEqualTo(1);
        InterfaceCounters c = r.sflow().counters().get(0);
        assertThat(c.sampleSequence()).isEqualTo(42L);
        assertThat(c.sourceIdIndex()).isEqualTo(7L);
        assertThat(c.ifIndex()).isEqualTo(7L);
        assertThat(c.subAgentId()).isEqualTo(3L);
        assertThat(c.uptimeMillis()).isEqualTo(5_000L);
        assertThat(c.timeReceivedMillis()).isEqualTo(CTX.receivedMillis());
        assertThat(c.generic().ifSpeed()).isEqualTo(10_000_000_000L);
        assertThat(Long.toUnsignedString(c.generic().ifInOctets()))
                .isEqualTo("18446744073709551600");
        assertThat(c.generic().ifStatus()).isEqualTo(3);
        assertThat(c.generic().ifOutErrors()).isEqualTo(12L);
        assertThat(c.ethernet().dot3StatsAlignmentErrors()).isEqualTo(0xffff_ff01L);
        assertThat(c.ethernet().dot3StatsSymbolErrors()).isEqualTo(0xffff_ff0dL);
        assertThat(kinds(r)).containsExactly(Kind.UNKNOWN_RECORD_FORMAT);
    }

    // ---- hostile input ----

    @Test
    void inlineHexHeaders() throws Exception {
        // An empty datagram: header only, no samples. Fine.
        DecodeResult empty =
                decode(
                        HexFormat.of()
                                .parseHex(
                                        "00000005"
                                                + "00000001"
                                                + "c0000201"
                                                + "00000000"
                                                + "00000001"
                                                + "00000000"
                                                + "00000000"));
        assertThat(empty.records()).isEmpty();
        assertThat(empty.problems()).isEmpty();
        // Agent address type "unknown": no address bytes.
        DecodeResult unknown =
                decode(
                        HexFormat.of()
                                .parseHex(
                                        "00000005"
                                                + "00000000"
                                                + "00000000"
                                                + "00000001"
                                                + "00000000"
                                                + "00000000"));
        assertThat(unknown.sflow().agentAddress()).isEqualTo(IpAddress.UNSPECIFIED);
        // One byte short of a header.
        assertThatThrownBy(
                        () ->
                                decode(
                                        HexFormat.of()
                                                .parseHex(
                                                        "00000005"
                                                                + "00000001"
                                                                + "c0000201"
                                                                + "00000000"
                                                                + "00000001"
                                                                + "00000000"
                                                                + "000000")))
                .isInstanceOf(TruncatedMessageException.class);
        // IPv6 agent but only an IPv4-sized header.
        assertThatThrownBy(
                        () ->
                                decode(
                                        HexFormat.of()
                                                .parseHex(
                                                        "00000005"
                                                                + "00000002"
                                                                + "c0000201"
                                                                + "00000000"
                                                                + "00000001"
                                                                + "00000000"
                                                                + "00000000")))
                .isInstanceOf(TruncatedMessageException.class)
                .hasMessageContaining("16-byte agent address");
        // Address type 3.
        assertThatThrownBy(
                        () ->
                                decode(
                                        HexFormat.of()
                                                .parseHex(
                                                        "00000005"
                                                                + "00000003"
                                                                + "c0000201"
                                                                + "00000000"
                                                                + "00000001"
                                                                + "00000000"
                                                                + "00000000")))
                .isInstanceOf(MalformedSetException.class)
                .satisfies(
                        e ->
                                assertThat(((DecodeException) e).kind())
                                        .isEqualTo(Kind.BAD_ADDRESS_TYPE));
        // sFlow v4.
        assertThatThrownBy(
                        () ->
                                decode(
                                        HexFormat.of()
                                                .parseHex(
                                                        "00000004"
                                                                + "00000001"
                                                                + "c0000201"
                                                                + "00000000"
                                                                + "00000001"
                                                                + "00000000"
                                                                + "00000000")))
                .isInstanceOf(DecodeException.class)
                .satisfies(
                        e ->
                                assertThat(((DecodeException) e).kind())
                                        .isEqualTo(Kind.UNSUPPORTED_VERSION));
    }

    @Test
    void aSampleLongerThanTheDatagramStopsTheWalkButKeepsWhatCameBefore() throws Exception {
        SflowBytes good = flowSample(1);
        byte[] b =
                SflowBytes.header(AGENT, 0, 1, 0, 2)
                        .element(1, good)
                        .element(1, flowSample(2))
                        .toBytes();
        // The second sample's length word: after the header (28), the first sample (8 + body).
        int second = 28 + 8 + good.toBytes().length;
        ByteBuffer.wrap(b).putInt(second + 4, 100_000);
        DecodeResult r = decode(b);
        assertThat(r.records()).hasSize(1);
        assertThat(kinds(r)).containsExactly(Kind.SET_LENGTH_PAST_END);
    }

    @Test
    void moreSamplesDeclaredThanPresent() throws Exception {
        DecodeResult r =
                decode(SflowBytes.header(AGENT, 0, 1, 0, 0xffff_ffffL).element(1, flowSample(1)));
        assertThat(r.records()).hasSize(1);
        assertThat(r.sflow().declaredSamples()).isEqualTo(0xffff_ffffL);
        assertThat(kinds(r)).containsExactly(Kind.BAD_RECORD_COUNT);
    }

    @Test
    void trailingBytesAreNoted() throws Exception {
        DecodeResult r =
                decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, flowSample(1)).u32(0));
        assertThat(r.records()).hasSize(1);
        assertThat(kinds(r)).containsExactly(Kind.TRAILING_BYTES);
    }

    @Test
    void shortRecordsAreSkippedAndTheSampleKept() throws Exception {
        SflowBytes sample =
                SflowBytes.of()
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(0)
                        .u32(1)
                        .u32(2)
                        .u32(6)
                        .element(1001, SflowBytes.of().u32(100)) // 4 of 16 bytes
                        .element(3, SflowBytes.of().u32(1)) // 4 of 32
                        .element(4, SflowBytes.of().u32(1)) // 4 of 56
                        .element(2, SflowBytes.of().u32(1)) // 4 of 24
                        .element(1002, SflowBytes.of().u32(2).u32(0).u32(0)) // IPv6 hop cut
                        .element(
                                1003,
                                SflowBytes.of().u32(9).u32(0).u32(0).u32(0).u32(0).u32(0).u32(0));
        DecodeResult r = decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, sample));
        assertThat(r.records()).hasSize(1);
        FlowRecord f = r.records().get(0);
        assertThat(f.vlanId()).isZero();
        assertThat(f.ipVersion()).isZero();
        assertThat(f.nextHop()).isEqualTo(IpAddress.UNSPECIFIED);
        assertThat(r.problems()).hasSize(2);
        assertThat(kinds(r))
                .containsExactlyInAnyOrder(Kind.RECORD_TRUNCATED, Kind.BAD_ADDRESS_TYPE);
        assertThat(
                        r.problems().stream()
                                .filter(p -> p.kind() == Kind.RECORD_TRUNCATED)
                                .findFirst()
                                .orElseThrow()
                                .message())
                .contains("5 in this datagram");
    }

    @Test
    void gatewayPathLongerThanItsRecord() throws Exception {
        SflowBytes gateway =
                SflowBytes.of()
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(0xffff_ffffL) // segments
                        .u32(2)
                        .u32(0x4000_0000L) // a segment of 2^30 AS numbers
                        .u32(0)
                        .u32(0);
        SflowBytes sample =
                SflowBytes.of()
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(0)
                        .u32(1)
                        .u32(2)
                        .u32(1)
                        .element(1003, gateway);
        DecodeResult r = decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, sample));
        assertThat(r.records().get(0).dstAs()).isZero();
        assertThat(kinds(r)).containsExactly(Kind.RECORD_TRUNCATED);
    }

    @Test
    void sampledHeaderLongerThanItsRecordIsParsedAsFarAsItGoes() throws Exception {
        byte[] cut = Arrays.copyOf(TCP_FRAME, 40); // Ethernet + tag + IPv4 + 2 bytes of TCP
        SflowBytes hdr = SflowBytes.of().u32(1).u32(1518).u32(4).u32(96).bytes(cut);
        SflowBytes sample =
                SflowBytes.of()
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(1)
                        .u32(0)
                        .u32(1)
                        .u32(2)
                        .u32(1)
                        .element(1, hdr);
        DecodeResult r = decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, sample));
        FlowRecord f = r.records().get(0);
        assertThat(f.srcAddr()).isEqualTo(IpAddress.parse("10.0.0.1"));
        assertThat(f.protocol()).isEqualTo(6);
        assertThat(f.srcPort()).as("transport header cut").isZero();
        assertThat(f.bytes()).isEqualTo(1518L);
        assertThat(kinds(r)).containsExactly(Kind.RECORD_TRUNCATED);
    }

    @Test
    void aThousandBadRecordsAreOneProblem() throws Exception {
        SflowBytes sample =
                SflowBytes.of().u32(1).u32(1).u32(1).u32(1).u32(0).u32(1).u32(2).u32(1000);
        for (int i = 0; i < 1000; i++) {
            sample.element(1001, SflowBytes.of());
        }
        DecodeResult r = decode(SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, sample));
        assertThat(r.problems()).hasSize(1);
        assertThat(r.problems().get(0).message()).contains("1000 in this datagram");
    }

    @Test
    void theCallersBufferIsLeftAlone() throws Exception {
        byte[] b = SflowBytes.header(AGENT, 0, 1, 0, 1).element(1, flowSample(1)).toBytes();
        ByteBuffer in = ByteBuffer.allocate(b.length + 10).order(ByteOrder.LITTLE_ENDIAN);
        in.position(10);
        in.put(b);
        in.position(10);
        DecodeResult r =
                new SflowDecoder()
                        .decode(in.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), CTX);
        assertThat(r.records()).hasSize(1);
        assertThat(r.sequenceNumber()).isEqualTo(1L);
        assertThat(in.position()).isEqualTo(10);
        assertThat(in.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
    }

    private static SflowBytes flowSample(long sequence) {
        return SflowBytes.of()
                .u32(sequence)
                .u32(1)
                .u32(1)
                .u32(sequence)
                .u32(0)
                .u32(1)
                .u32(2)
                .u32(1)
                .element(1, sampledHeader(1, 62, TCP_FRAME));
    }

    // ---- real datagrams, cut and mutated ----

    @Test
    void everyPrefixOfRealDatagramsDecodesOrThrowsTheCodecsOwn() throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        for (String file : new String[] {"sflow-ovs-rate10.pcap", "sflow-pmacct-rate1.pcap.gz"}) {
            List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
            for (int i = 0; i < ds.size(); i += 97) {
                byte[] p = ds.get(i).payload();
                for (int n = 0; n <= p.length; n++) {
                    try {
                        DecodeResult r = decoder.decode(ByteBuffer.wrap(p, 0, n), CTX, cache);
                        assertThat(r.records().size())
                                .isLessThanOrEqualTo(n / SflowDecoder.MIN_FLOW_SAMPLE);
                    } catch (DecodeException e) {
                        int agent = p[7] == 2 ? 16 : 4;
                        assertThat(n).isLessThan(8 + agent + 16);
                    }
                }
            }
        }
    }

    @Test
    void everyByteOfARealDatagramSetToInterestingValues() throws Exception {
        byte[] p = CaptureDatagrams.datagrams("sflow-ovs-rate10.pcap").get(1).payload();
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        byte[] values = {0, 1, 0x3f, 0x40, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
        long decoded = 0;
        for (int i = 0; i < p.length; i++) {
            for (byte v : values) {
                byte[] m = p.clone();
                m[i] = v;
                try {
                    decoder.decode(ByteBuffer.wrap(m), CTX, cache);
                    decoded++;
                } catch (DecodeException e) {
                    assertThat(i).as("only the header can be fatal").isLessThan(28);
                }
            }
        }
        assertThat(decoded).isGreaterThan(p.length * 7L);
    }
}
