// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static io.flowhouse.codec.Wire.concat;
import static io.flowhouse.codec.Wire.set;
import static io.flowhouse.codec.Wire.template;
import static io.flowhouse.codec.Wire.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.v5.V5Encoder;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A record's position is its set's ordinal among all sets of the datagram and its ordinal in the
 * set, whatever was decodable: live (a template not yet known) and replayed (every template known)
 * give the same records the same positions.
 */
class RecordPositionTest {

    private static final DecodeContext CTX =
            new DecodeContext(
                    new ExporterKey(IpAddress.parse("192.0.2.10"), 4739), 1_700_000_000_000L);

    // Template 256: sourceIPv4Address, packetDeltaCount; template 257: destinationIPv4Address,
    // packetDeltaCount. Records are 12 bytes.
    private static final byte[] T256 = template(256, 8, 4, 2, 8);
    private static final byte[] T257 = template(257, 12, 4, 2, 8);

    private static byte[] records(long firstAddress, long firstPackets) {
        return concat(
                values(4, firstAddress),
                values(8, firstPackets),
                values(4, firstAddress + 1),
                values(8, firstPackets + 1));
    }

    /** A set of the late template (256), then a set of the known one (257). */
    private static byte[][] mixedSets() {
        return new byte[][] {
            set(256, records(0x0a000001L, 100)), set(257, records(0x0a000101L, 200))
        };
    }

    @Test
    void ipfixLiveAndReplayAgreeOnPositions() throws Exception {
        byte[] templates257 = Wire.ipfix(1, 0, set(2, T257));
        byte[] templatesBoth = Wire.ipfix(1, 0, set(2, concat(T256, T257)));
        byte[] mixed = Wire.ipfix(1, 7, mixedSets());
        assertLiveAndReplayAgree(templates257, templatesBoth, mixed);
    }

    @Test
    void v9LiveAndReplayAgreeOnPositions() throws Exception {
        byte[] templates257 = Wire.v9(1, 0, 1, set(0, T257));
        byte[] templatesBoth = Wire.v9(1, 0, 2, set(0, concat(T256, T257)));
        byte[] mixed = Wire.v9(1, 7, 4, mixedSets());
        assertLiveAndReplayAgree(templates257, templatesBoth, mixed);
    }

    private static void assertLiveAndReplayAgree(
            byte[] liveTemplates, byte[] replayTemplates, byte[] mixed) throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache live = new InMemoryTemplateCache();
        decoder.decode(ByteBuffer.wrap(liveTemplates), CTX, live);
        DecodeResult l = decoder.decode(ByteBuffer.wrap(mixed), CTX, live);
        assertThat(l.missingTemplateIds()).containsExactly(256);
        assertThat(l.records()).hasSize(2);

        InMemoryTemplateCache replay = new InMemoryTemplateCache();
        decoder.decode(ByteBuffer.wrap(replayTemplates), CTX, replay);
        DecodeResult r = decoder.decode(ByteBuffer.wrap(mixed), CTX, replay);
        assertThat(r.missingTemplateIds()).isEmpty();
        assertThat(r.records()).hasSize(4);

        assertThat(r.records())
                .extracting(FlowRecord::setIndex, FlowRecord::recordInSet)
                .containsExactly(tuple(0, 0), tuple(0, 1), tuple(1, 0), tuple(1, 1));
        // The second set's records: the same values and the same positions, live and replayed.
        assertThat(r.records().subList(2, 4)).isEqualTo(l.records());
        assertThat(l.records())
                .extracting(FlowRecord::recordIndex)
                .containsExactly(FlowRecord.position(1, 0), FlowRecord.position(1, 1));
    }

    @Test
    void everySetCountsWhateverItsKindOrFate() throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        byte[] m =
                Wire.ipfix(
                        1,
                        0,
                        set(5, new byte[4]), // reserved id
                        set(999, new byte[12]), // unknown template
                        set(3, Wire.ipfixOptionsTemplate(300, 1, 10, 4, 34, 4)), // options
                        set(2, T256), // template
                        set(256, records(0x0a000001L, 1)));
        DecodeResult r = decoder.decode(ByteBuffer.wrap(m), CTX, cache);
        assertThat(r.records())
                .extracting(FlowRecord::setIndex, FlowRecord::recordInSet)
                .containsExactly(tuple(4, 0), tuple(4, 1));
    }

    @Test
    void v5RecordsArePositionedInTheirOneSet() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(V5Encoder.size(3));
        FlowRecord f =
                FlowRecord.builder()
                        .srcAddr(IpAddress.parse("10.0.0.1"))
                        .dstAddr(IpAddress.parse("10.0.0.2"))
                        .packets(1)
                        .bytes(60)
                        .flowStartMillis(1_699_999_990_000L)
                        .flowEndMillis(1_699_999_999_000L)
                        .build();
        V5Encoder.encode(
                new V5Encoder.Header(1_700_000_000_000L, 86_400_000L, 1, 0, 0, 0, 0),
                List.of(f, f, f),
                b);
        b.flip();
        DecodeResult r = new NetflowDecoder().decode(b, CTX, new InMemoryTemplateCache());
        assertThat(r.records())
                .extracting(FlowRecord::setIndex, FlowRecord::recordInSet)
                .containsExactly(tuple(0, 0), tuple(0, 1), tuple(0, 2));
    }

    @Test
    void positionPacksAndUnpacks() {
        FlowRecord r = FlowRecord.builder().position(16_378, 65_515).build();
        assertThat(r.setIndex()).isEqualTo(16_378);
        assertThat(r.recordInSet()).isEqualTo(65_515);
        assertThat(r.recordIndex()).isPositive();
        assertThat(FlowRecord.position(0, 7)).isEqualTo(7); // v5: the index in the packet
    }

    @Test
    void everyRecordCarriesItsDatagramsStream() throws Exception {
        DecodeContext stamped =
                new DecodeContext(CTX.exporter(), CTX.receivedMillis(), 0x5eed_0001L, 41L);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        byte[] ipfix =
                Wire.ipfix(1, 0, set(2, concat(T256, T257)), set(256, records(0x0a000001L, 1)));
        byte[] v9 = Wire.v9(1, 0, 3, set(0, T257), set(257, records(0x0a000101L, 1)));
        ByteBuffer v5 = ByteBuffer.allocate(V5Encoder.size(2));
        FlowRecord f =
                FlowRecord.builder()
                        .srcAddr(IpAddress.parse("10.0.0.1"))
                        .dstAddr(IpAddress.parse("10.0.0.2"))
                        .packets(1)
                        .bytes(60)
                        .flowStartMillis(1_699_999_990_000L)
                        .flowEndMillis(1_699_999_999_000L)
                        .build();
        V5Encoder.encode(
                new V5Encoder.Header(1_700_000_000_000L, 86_400_000L, 1, 0, 0, 0, 0),
                List.of(f, f),
                v5);
        v5.flip();
        for (ByteBuffer b : List.of(ByteBuffer.wrap(ipfix), ByteBuffer.wrap(v9), v5)) {
            DecodeResult r = decoder.decode(b, stamped, cache);
            assertThat(r.records()).hasSize(2);
            assertThat(r.records())
                    .extracting(FlowRecord::streamId, FlowRecord::streamSequence)
                    .containsOnly(tuple(0x5eed_0001L, 41L));
        }
        DecodeResult plain = decoder.decode(ByteBuffer.wrap(ipfix), CTX, cache);
        assertThat(plain.records()).extracting(FlowRecord::streamId).containsOnly(0L);
    }
}
