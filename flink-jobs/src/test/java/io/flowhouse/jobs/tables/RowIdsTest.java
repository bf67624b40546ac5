// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.v5.V5Encoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RowIdsTest {

    @Test
    void sameFlowSameIdAcrossDecodes() {
        FlowRecord a = ClickHouseTestSupport.flow(42);
        FlowRecord b = a.toBuilder().build();
        assertThat(RowIds.of(a)).isEqualTo(RowIds.of(b));
        // Stable across releases: a changed id would break deduplication of old rows.
        assertThat(RowIds.of(FlowRecord.builder().version(9).build()))
                .isEqualTo(RowIds.of(FlowRecord.builder().version(9).build()));
    }

    @Test
    void everyIdentityFieldChangesTheId() {
        FlowRecord base = ClickHouseTestSupport.flow(42);
        long id = RowIds.of(base);
        assertThat(
                        RowIds.of(
                                base.toBuilder()
                                        .exporterAddress(IpAddress.parse("192.0.2.99"))
                                        .build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().exporterPort(2056).build())).isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().observationDomainId(8).build())).isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().sequenceNumber(base.sequenceNumber() + 1).build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().recordIndex(base.recordIndex() + 1).build()))
                .isNotEqualTo(id);
        // Counters are not identity: the same record is the same row whatever it says.
        assertThat(RowIds.of(base.toBuilder().bytes(1).build())).isEqualTo(id);
    }

    @Test
    void packetFlowsAreIdentifiedByKeyAndStart() {
        FlowRecord p = ClickHouseTestSupport.flow(7).toBuilder().version(0).build();
        long id = RowIds.of(p);
        assertThat(RowIds.of(p.toBuilder().sequenceNumber(99).build())).isEqualTo(id);
        assertThat(RowIds.of(p.toBuilder().flowStartMillis(p.flowStartMillis() + 1).build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(p.toBuilder().srcPort(p.srcPort() + 1).build())).isNotEqualTo(id);
    }

    @Test
    void noCollisionsInAMillionSequentialRecords() {
        Set<Long> ids = new HashSet<>();
        FlowRecord.Builder b = ClickHouseTestSupport.flow(0).toBuilder();
        for (int seq = 0; seq < 100_000; seq++) {
            for (int idx = 0; idx < 10; idx++) {
                ids.add(RowIds.of(b.sequenceNumber(seq).recordIndex(idx).build()));
            }
        }
        assertThat(ids).hasSize(1_000_000);
    }

    // A datagram with a set of a template that comes late, then a set of a known template (pmacct
    // mixes IPv4 and IPv6 sets so). Template 256: sourceIPv4Address, packetDeltaCount; 257:
    // destinationIPv4Address, packetDeltaCount.
    private static final DecodeContext CTX =
            new DecodeContext(
                    new ExporterKey(IpAddress.parse("192.0.2.10"), 4739), 1_700_000_000_000L);

    private static byte[] set(int id, int... words) {
        ByteBuffer b = ByteBuffer.allocate(4 + 2 * words.length);
        b.putShort((short) id).putShort((short) (4 + 2 * words.length));
        for (int w : words) {
            b.putShort((short) w);
        }
        return b.array();
    }

    /** Two 12-byte records: address (4), packets (8). */
    private static int[] twoRecords(int address) {
        return new int[] {0x0a00, address, 0, 0, 0, 100, 0x0a00, address + 1, 0, 0, 0, 101};
    }

    private static byte[] message(int version, byte[]... sets) {
        int header = version == 10 ? 16 : 20;
        int len = header;
        for (byte[] s : sets) {
            len += s.length;
        }
        ByteBuffer b = ByteBuffer.allocate(len);
        if (version == 10) {
            b.putShort((short) 10).putShort((short) len).putInt(1_700_000_000).putInt(7).putInt(1);
        } else {
            b.putShort((short) 9).putShort((short) 4).putInt(100_000).putInt(1_700_000_000);
            b.putInt(7).putInt(1);
        }
        for (byte[] s : sets) {
            b.put(s);
        }
        return b.array();
    }

    private static List<Long> ids(DecodeResult r) {
        List<Long> ids = new ArrayList<>();
        for (FlowRecord f : r.records()) {
            ids.add(RowIds.of(f));
        }
        return ids;
    }

    @ParameterizedTest
    @ValueSource(ints = {9, 10})
    void aReplayThatKnowsALateTemplateGivesTheLiveIds(int version) throws Exception {
        int templateSet = version == 10 ? 2 : 0;
        byte[] t256 = set(templateSet, 256, 2, 8, 4, 2, 8);
        byte[] t257 = set(templateSet, 257, 2, 12, 4, 2, 8);
        byte[] mixed = message(version, set(256, twoRecords(1)), set(257, twoRecords(0x0101)));
        NetflowDecoder decoder = new NetflowDecoder();

        InMemoryTemplateCache live = new InMemoryTemplateCache();
        decoder.decode(ByteBuffer.wrap(message(version, t257)), CTX, live);
        DecodeResult l = decoder.decode(ByteBuffer.wrap(mixed), CTX, live);
        assertThat(l.missingTemplateIds()).containsExactly(256);

        InMemoryTemplateCache replay = new InMemoryTemplateCache();
        decoder.decode(ByteBuffer.wrap(message(version, t256, t257)), CTX, replay);
        DecodeResult r = decoder.decode(ByteBuffer.wrap(mixed), CTX, replay);

        assertThat(r.records()).hasSize(4);
        assertThat(l.records())
                .extracting(FlowRecord::setIndex, FlowRecord::recordInSet)
                .containsExactly(tuple(1, 0), tuple(1, 1));
        assertThat(r.records().subList(2, 4)).isEqualTo(l.records());
        assertThat(ids(r).subList(2, 4)).isEqualTo(ids(l));
        assertThat(ids(r)).doesNotHaveDuplicates();
    }

    @Test
    void v5IdsComeFromThePositionInThePacket() throws Exception {
        FlowRecord f =
                FlowRecord.builder()
                        .srcAddr(IpAddress.parse("10.0.0.1"))
                        .dstAddr(IpAddress.parse("10.0.0.2"))
                        .packets(1)
                        .bytes(60)
                        .flowStartMillis(1_699_999_990_000L)
                        .flowEndMillis(1_699_999_999_000L)
                        .build();
        ByteBuffer b = ByteBuffer.allocate(V5Encoder.size(3));
        V5Encoder.encode(
                new V5Encoder.Header(1_700_000_000_000L, 86_400_000L, 1, 0, 0, 0, 0),
                List.of(f, f, f),
                b);
        b.flip();
        NetflowDecoder decoder = new NetflowDecoder();
        DecodeResult once = decoder.decode(b.duplicate(), CTX, new InMemoryTemplateCache());
        DecodeResult again = decoder.decode(b.duplicate(), CTX, new InMemoryTemplateCache());
        assertThat(once.records())
                .extracting(FlowRecord::setIndex, FlowRecord::recordInSet)
                .containsExactly(tuple(0, 0), tuple(0, 1), tuple(0, 2));
        assertThat(ids(again)).isEqualTo(ids(once)).doesNotHaveDuplicates();
        // v5 ids are what they were when the index was a decode ordinal (set 0, record i).
        assertThat(RowIds.of(once.records().get(2)))
                .isEqualTo(RowIds.of(once.records().get(2).toBuilder().recordIndex(2).build()));
    }

    @Test
    void stampedIdsComeFromTheStreamTheSequenceAndThePositionOnly() {
        FlowRecord base = ClickHouseTestSupport.flow(42).toBuilder().stream(0x1234L, 77L).build();
        long lo = RowIds.of(base);
        long hi = RowIds.high(base);
        assertThat(hi).isNotZero().isNotEqualTo(lo);
        // The exporter's own sequence number (which repeats after a restart) plays no part.
        FlowRecord restarted = base.toBuilder().sequenceNumber(0).build();
        assertThat(RowIds.of(restarted)).isEqualTo(lo);
        assertThat(RowIds.high(restarted)).isEqualTo(hi);
        for (FlowRecord other :
                List.of(
                        base.toBuilder().stream(0x1235L, 77L).build(),
                        base.toBuilder().stream(0x1234L, 78L).build(),
                        base.toBuilder().position(0, 1).build())) {
            assertThat(RowIds.of(other)).isNotEqualTo(lo);
            assertThat(RowIds.high(other)).isNotEqualTo(hi);
        }
        // Unstamped records keep their old id, and a zero high word.
        FlowRecord old = ClickHouseTestSupport.flow(42);
        assertThat(RowIds.high(old)).isZero();
        assertThat(RowIds.of(old)).isNotEqualTo(lo);
    }

    @Test
    void noCollisionsInAMillionStampedRecordsOfOneExporterRestartingOften() {
        Set<Long> lows = new HashSet<>();
        FlowRecord.Builder b = ClickHouseTestSupport.flow(0).toBuilder();
        int n = 0;
        for (long stream = 1; stream <= 100; stream++) {
            long streamId = io.flowhouse.codec.envelope.DatagramStamp.streamId("edge", 1, stream);
            for (long seq = 0; seq < 1_000; seq++) {
                for (int rec = 0; rec < 10; rec++) {
                    // Every stream reuses the exporter's sequence numbers from 0.
                    FlowRecord f =
                            b.stream(streamId, seq).sequenceNumber(seq).position(0, rec).build();
                    lows.add(RowIds.of(f));
                    n++;
                }
            }
        }
        assertThat(lows).hasSize(n);
    }
}
