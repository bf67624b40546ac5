// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each kind of broken input is a named problem or a named exception, never anything else. */
class MalformedInputTest {

    private static final ExporterKey EXPORTER = new ExporterKey(IpAddress.parse("192.0.2.1"), 2055);
    private static final DecodeContext CTX = new DecodeContext(EXPORTER, 1_700_000_000_000L);

    private final NetflowDecoder decoder = new NetflowDecoder();
    private final InMemoryTemplateCache cache = new InMemoryTemplateCache();

    /** Every problem counted, each kind as often as it occurred. */
    private static List<DecodeProblem.Kind> kinds(DecodeResult r) {
        List<DecodeProblem.Kind> kinds = new ArrayList<>();
        r.problemCounts().asMap().forEach((k, c) -> kinds.addAll(Collections.nCopies(c, k)));
        return kinds;
    }

    private static ByteBuffer v9(int count, byte[]... flowSets) {
        int len = 20;
        for (byte[] f : flowSets) {
            len += f.length;
        }
        ByteBuffer b = ByteBuffer.allocate(len);
        b.putShort((short) 9)
                .putShort((short) count)
                .putInt(1000)
                .putInt(1_700_000_000)
                .putInt(1)
                .putInt(7);
        for (byte[] f : flowSets) {
            b.put(f);
        }
        return b.flip();
    }

    private static byte[] flowSet(int id, int declaredLength, int... shorts) {
        ByteBuffer b = ByteBuffer.allocate(4 + 2 * shorts.length);
        b.putShort((short) id).putShort((short) declaredLength);
        for (int s : shorts) {
            b.putShort((short) s);
        }
        return b.array();
    }

    @Test
    void truncatedHeadersThrowNamedExceptions() {
        for (byte[] d :
                List.of(
                        new byte[] {0},
                        new byte[] {0, 5, 0, 1},
                        new byte[] {0, 9, 0, 1, 0, 0},
                        new byte[] {0, 10, 0, 16, 0, 0, 0, 0})) {
            assertThatThrownBy(() -> decoder.decode(ByteBuffer.wrap(d), CTX, cache))
                    .isInstanceOf(TruncatedMessageException.class)
                    .extracting(e -> ((DecodeException) e).kind())
                    .isEqualTo(DecodeProblem.Kind.TRUNCATED_HEADER);
        }
    }

    @Test
    void unknownVersionThrows() {
        assertThatThrownBy(
                        () -> decoder.decode(ByteBuffer.wrap(new byte[] {0, 7, 0, 0}), CTX, cache))
                .isInstanceOf(UnsupportedVersionException.class);
    }

    @Test
    void ipfixLengthPastEndThrows() {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.putShort((short) 10).putShort((short) 100).putInt(0).putInt(0).putInt(0).flip();
        assertThatThrownBy(() -> decoder.decode(b, CTX, cache))
                .isInstanceOf(TruncatedMessageException.class)
                .extracting(e -> ((DecodeException) e).kind())
                .isEqualTo(DecodeProblem.Kind.LENGTH_PAST_END);
    }

    @Test
    void setLengthPastEndIsAProblem() throws Exception {
        DecodeResult r = decoder.decode(v9(1, flowSet(256, 400, 1, 2, 3, 4)), CTX, cache);
        assertThat(kinds(r)).contains(DecodeProblem.Kind.SET_LENGTH_PAST_END);
        assertThat(r.records()).isEmpty();
    }

    @Test
    void zeroLengthSetIsAProblemAndStopsTheWalk() throws Exception {
        DecodeResult r = decoder.decode(v9(1, flowSet(256, 0, 1, 2)), CTX, cache);
        assertThat(kinds(r)).contains(DecodeProblem.Kind.ZERO_LENGTH_SET);
    }

    @Test
    void fieldCountOverflowIsAProblem() throws Exception {
        // template 300 declares 1000 fields in a 12-byte FlowSet
        DecodeResult r = decoder.decode(v9(1, flowSet(0, 12, 300, 1000, 1, 4)), CTX, cache);
        assertThat(kinds(r)).contains(DecodeProblem.Kind.FIELD_COUNT_OVERFLOW);
        assertThat(cache.size()).isZero();
    }

    @Test
    void missingTemplateIsAProblemAndOtherSetsStillDecode() throws Exception {
        byte[] template = flowSet(0, 12, 300, 1, 2, 4); // template 300: packetDeltaCount(4)
        byte[] unknown = flowSet(999, 8, 0, 0);
        byte[] data = flowSet(300, 8, 0, 42);
        DecodeResult r = decoder.decode(v9(2, template, unknown, data), CTX, cache);
        assertThat(kinds(r)).containsExactly(DecodeProblem.Kind.TEMPLATE_MISSING);
        assertThat(r.records()).hasSize(1);
        assertThat(r.records().get(0).packets()).isEqualTo(42);
    }

    @Test
    void reservedSetIdIsSkipped() throws Exception {
        DecodeResult r = decoder.decode(v9(0, flowSet(5, 8, 0, 0)), CTX, cache);
        assertThat(kinds(r)).contains(DecodeProblem.Kind.RESERVED_SET_ID);
    }

    @Test
    void zeroLengthRecordTemplateIsInvalidNotAnEndlessLoop() throws Exception {
        DecodeResult r =
                decoder.decode(
                        v9(2, flowSet(0, 12, 300, 1, 2, 0), flowSet(300, 8, 0, 0)), CTX, cache);
        assertThat(kinds(r))
                .contains(DecodeProblem.Kind.TEMPLATE_INVALID, DecodeProblem.Kind.TEMPLATE_MISSING);
    }

    @Test
    void templateFloodIsCappedPerExporterAndOthersAreUnaffected() throws Exception {
        InMemoryTemplateCache small = new InMemoryTemplateCache(10);
        int[] shorts = new int[20 * 4];
        for (int i = 0; i < 20; i++) {
            shorts[i * 4] = 256 + i;
            shorts[i * 4 + 1] = 1;
            shorts[i * 4 + 2] = 2;
            shorts[i * 4 + 3] = 4;
        }
        DecodeResult r =
                decoder.decode(v9(20, flowSet(0, 4 + 2 * shorts.length, shorts)), CTX, small);
        assertThat(kinds(r)).filteredOn(k -> k == DecodeProblem.Kind.TEMPLATE_FLOOD).hasSize(10);
        assertThat(small.templateCount(EXPORTER)).isEqualTo(10);
        ExporterKey other = new ExporterKey(IpAddress.parse("192.0.2.2"), 2055);
        DecodeResult r2 =
                decoder.decode(
                        v9(1, flowSet(0, 12, 256, 1, 2, 4)), new DecodeContext(other, 0), small);
        assertThat(r2.problems()).isEmpty();
        assertThat(small.templateCount(other)).isEqualTo(1);
    }

    @Test
    void oddFieldLengthIsFlaggedAndSkippedNotFatal() throws Exception {
        // IPFIX: flowStartMicroseconds with 16 bytes (the RFC gives 8), then packetDeltaCount(8)
        Template t =
                Template.of(
                        400,
                        List.of(
                                FieldSpecifier.of(154, 16),
                                FieldSpecifier.of(2, 8),
                                FieldSpecifier.of(8, 4)));
        ByteBuffer b = ByteBuffer.allocate(256);
        IpfixEncoder enc = new IpfixEncoder();
        IpfixEncoder.Message m = enc.begin(b, 1, 1_700_000_000L).template(t);
        m.data(400).bytes(new byte[16]).u64(5).ipv4(IpAddress.parse("10.0.0.1")).endRecord();
        m.finish();
        b.flip();
        DecodeResult r = decoder.decode(b, CTX, cache);
        assertThat(kinds(r)).containsExactly(DecodeProblem.Kind.ODD_FIELD_LENGTH);
        assertThat(r.records()).hasSize(1);
        assertThat(r.records().get(0).packets()).isEqualTo(5);
        assertThat(r.records().get(0).srcAddr()).isEqualTo(IpAddress.parse("10.0.0.1"));
    }

    @Test
    void elementsAssignedSince2013DecodeAndAreNamedWhenOdd() throws Exception {
        // originalExporterIPv4Address (403), sourceTransportPortsLimit (458),
        // ipv6ExtensionHeadersFull (515, unsigned256: no DataType), then packetDeltaCount
        Template t =
                Template.of(
                        402,
                        List.of(
                                FieldSpecifier.of(403, 4),
                                FieldSpecifier.of(458, 2),
                                FieldSpecifier.of(515, 32),
                                FieldSpecifier.of(2, 8)));
        ByteBuffer b = ByteBuffer.allocate(256);
        IpfixEncoder.Message m = new IpfixEncoder().begin(b, 1, 1_700_000_000L).template(t);
        m.data(402).ipv4(IpAddress.parse("10.0.0.9")).u16(1024).bytes(new byte[32]).u64(7);
        m.endRecord().finish();
        b.flip();
        DecodeResult r = decoder.decode(b, CTX, cache);
        assertThat(r.problems()).isEmpty();
        assertThat(r.records()).singleElement().extracting(FlowRecord::packets).isEqualTo(7L);

        // an IPv4 address element of 3 bytes is odd, and the problem names it
        Template odd =
                Template.of(403, List.of(FieldSpecifier.of(403, 3), FieldSpecifier.of(2, 8)));
        ByteBuffer c = ByteBuffer.allocate(256);
        IpfixEncoder.Message n = new IpfixEncoder().begin(c, 1, 1_700_000_000L).template(odd);
        n.data(403).bytes(new byte[3]).u64(8).endRecord().finish();
        c.flip();
        DecodeResult o = decoder.decode(c, CTX, cache);
        assertThat(kinds(o)).containsExactly(DecodeProblem.Kind.ODD_FIELD_LENGTH);
        assertThat(o.problems().get(0).message()).contains("originalExporterIPv4Address");
        assertThat(o.records()).singleElement().extracting(FlowRecord::packets).isEqualTo(8L);
    }

    @Test
    void variableLengthRecordPastSetEndIsAProblem() throws Exception {
        Template t =
                Template.of(401, List.of(FieldSpecifier.of(82, FieldSpecifier.VARIABLE_LENGTH)));
        ByteBuffer b = ByteBuffer.allocate(256);
        IpfixEncoder.Message m = new IpfixEncoder().begin(b, 1, 0).template(t);
        m.data(401).u8(200).bytes(new byte[] {1, 2, 3}).endRecord(); // says 200, has 3
        m.finish();
        b.flip();
        DecodeResult r = decoder.decode(b, CTX, cache);
        assertThat(kinds(r)).containsExactly(DecodeProblem.Kind.RECORD_TRUNCATED);
    }

    @Test
    void v5BadCountIsAProblemAndDecodesWhatFits() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(24 + 48);
        b.putShort(0, (short) 5).putShort(2, (short) 3);
        DecodeResult r = decoder.decode(b, CTX, cache);
        assertThat(kinds(r)).contains(DecodeProblem.Kind.BAD_RECORD_COUNT);
        assertThat(r.records()).hasSize(1);
    }

    @Test
    void resentTemplatesAreRefreshedAndChangedOnesReplaced() throws Exception {
        Template t =
                Template.of(
                        600,
                        List.of(
                                FieldSpecifier.of(8, 4),
                                new FieldSpecifier(1, 8, FieldSpecifier.REVERSE_PEN)));
        Template changed =
                Template.of(
                        600,
                        List.of(
                                FieldSpecifier.of(8, 4),
                                new FieldSpecifier(1, 4, FieldSpecifier.REVERSE_PEN)));
        IpfixEncoder enc = new IpfixEncoder();
        ByteBuffer b = ByteBuffer.allocate(256);
        for (Template x : List.of(t, t, changed, changed, t)) {
            b.clear();
            enc.begin(b, 4, 0).template(x).finish();
            DecodeResult r = decoder.decode(b.flip(), CTX, cache);
            assertThat(r.problems()).isEmpty();
            assertThat(r.learned()).containsExactly(x);
            assertThat(cache.find(r.scope().key(600))).contains(x);
        }
        // NetFlow v9: 16-bit field types, no enterprise bit
        for (int length : new int[] {4, 4, 16, 16}) {
            DecodeResult r =
                    decoder.decode(v9(1, flowSet(0, 16, 700, 2, 8, length, 32768, 2)), CTX, cache);
            Template expected =
                    Template.of(
                            700,
                            List.of(FieldSpecifier.of(8, length), FieldSpecifier.of(32768, 2)));
            assertThat(r.learned()).containsExactly(expected);
            assertThat(cache.find(r.scope().key(700))).contains(expected);
        }
    }

    @Test
    void resentTemplatesStayTheCachedInstanceUntilTheirBytesChange() throws Exception {
        // 100 templates in one message: more than the decoder's per-template memo slots, so
        // slots are shared; every resend must still be told apart by its own bytes.
        List<Template> ts = new java.util.ArrayList<>();
        for (int id = 256; id < 356; id++) {
            ts.add(
                    Template.of(
                            id,
                            List.of(
                                    FieldSpecifier.of(8, 4),
                                    new FieldSpecifier(id, 2, 9), // enterprise element
                                    FieldSpecifier.of(2, 8))));
        }
        Template options =
                new Template(400, List.of(FieldSpecifier.of(144, 4), FieldSpecifier.of(34, 4)), 1);
        Template optionsTwoScopes =
                new Template(400, List.of(FieldSpecifier.of(144, 4), FieldSpecifier.of(34, 4)), 2);
        IpfixEncoder enc = new IpfixEncoder();
        ByteBuffer b = ByteBuffer.allocate(4096);
        Template[] first = new Template[ts.size()];
        Template firstOptions = null;
        for (int round = 0; round < 4; round++) {
            b.clear();
            IpfixEncoder.Message m = enc.begin(b, 5, 0);
            ts.forEach(m::template);
            m.template(round < 3 ? options : optionsTwoScopes).finish();
            DecodeResult r = decoder.decode(b.flip(), CTX, cache);
            assertThat(r.problems()).isEmpty();
            assertThat(r.learned()).hasSize(ts.size() + 1);
            for (int i = 0; i < ts.size(); i++) {
                Template learned = r.learned().get(i);
                assertThat(learned).isEqualTo(ts.get(i));
                if (round == 0) {
                    first[i] = learned;
                } else {
                    assertThat(learned).isSameAs(first[i]);
                }
                assertThat(cache.find(r.scope().key(256 + i)).orElseThrow()).isSameAs(first[i]);
            }
            Template o = r.learned().get(ts.size());
            if (round == 0) {
                firstOptions = o;
            } else if (round < 3) {
                assertThat(o).isSameAs(firstOptions);
            } else {
                // same field bytes, another scope count: a new template, not a refresh
                assertThat(o).isEqualTo(optionsTwoScopes).isNotSameAs(firstOptions);
            }
        }
        // one field changed after several identical resends: replaced, and its data decodes
        Template changed =
                Template.of(300, List.of(FieldSpecifier.of(8, 4), FieldSpecifier.of(2, 4)));
        b.clear();
        enc.begin(b, 5, 0).template(changed).data(300).u32(0x0a000001L).u32(7).finish();
        DecodeResult r = decoder.decode(b.flip(), CTX, cache);
        assertThat(r.problems()).isEmpty();
        assertThat(r.learned()).containsExactly(changed);
        assertThat(cache.find(r.scope().key(300))).contains(changed);
        assertThat(r.records())
                .singleElement()
                .satisfies(f -> assertThat(f.packets()).isEqualTo(7));
        // NetFlow v9: the same template three times, then one field longer
        Template v9First = null;
        for (int length : new int[] {4, 4, 4, 16}) {
            DecodeResult v =
                    decoder.decode(v9(1, flowSet(0, 16, 701, 2, 8, length, 32768, 2)), CTX, cache);
            Template t = v.learned().get(0);
            assertThat(t)
                    .isEqualTo(
                            Template.of(
                                    701,
                                    List.of(
                                            FieldSpecifier.of(8, length),
                                            FieldSpecifier.of(32768, 2))));
            if (v9First == null) {
                v9First = t;
            } else if (length == 4) {
                assertThat(t).isSameAs(v9First);
            } else {
                assertThat(t).isNotSameAs(v9First);
            }
        }
    }

    @Test
    void ipfixWithdrawalsRemoveTemplates() throws Exception {
        Template t = Template.of(500, List.of(FieldSpecifier.of(2, 8)));
        ByteBuffer b = ByteBuffer.allocate(256);
        IpfixEncoder enc = new IpfixEncoder();
        enc.begin(b, 3, 0)
                .template(t)
                .template(Template.of(501, List.of(FieldSpecifier.of(1, 8))))
                .finish();
        b.flip();
        DecodeResult learned = decoder.decode(b, CTX, cache);
        assertThat(learned.learned()).hasSize(2);
        b.clear();
        enc.begin(b, 3, 0).withdraw(500, false).withdraw(777, false).finish();
        b.flip();
        DecodeResult w = decoder.decode(b, CTX, cache);
        assertThat(w.withdrawn()).extracting(k -> k.templateId()).containsExactly(500);
        assertThat(kinds(w)).containsExactly(DecodeProblem.Kind.TEMPLATE_WITHDRAWAL_UNKNOWN);
        assertThat(cache.find(learned.scope().key(500))).isEmpty();
        assertThat(cache.find(learned.scope().key(501))).isPresent();
        b.clear();
        enc.begin(b, 3, 0).withdraw(2, false).finish(); // withdraw all data templates
        b.flip();
        decoder.decode(b, CTX, cache);
        assertThat(cache.find(learned.scope().key(501))).isEmpty();
    }

    @Test
    void decodingLeavesTheBufferPositionAlone() throws Exception {
        ByteBuffer b = v9(1, flowSet(0, 12, 300, 1, 2, 4));
        int pos = b.position();
        int lim = b.limit();
        decoder.decode(b, CTX, cache);
        assertThat(b.position()).isEqualTo(pos);
        assertThat(b.limit()).isEqualTo(lim);
    }
}
