// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static io.flowhouse.codec.Wire.concat;
import static io.flowhouse.codec.Wire.set;
import static io.flowhouse.codec.Wire.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateWire;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The strings of options data beside interface names: {@code interfaceDescription} (IE 83) by
 * ifIndex and {@code samplerName} (IE 84, v9 {@code SAMPLER_NAME}) by sampler id, as exporters send
 * them in IPFIX (variable length) and NetFlow v9 (fixed length, NUL padded); bounded by the same
 * {@link OptionsLimits} as the names, and kept in the scope's options data and its wire form.
 */
class OptionsStringsTest {

    private static final DecodeContext CTX =
            new DecodeContext(new ExporterKey(IpAddress.parse("192.0.2.7"), 4739), 0);

    /** Options template 300: ingressInterface (scope), interfaceName, interfaceDescription. */
    private static final byte[] IF_TEMPLATE =
            set(3, Wire.ipfixOptionsTemplate(300, 1, 10, 4, 82, 0xffff, 83, 0xffff));

    /** Options template 301: selectorId (scope), samplingInterval, samplerName. */
    private static final byte[] SAMPLER_TEMPLATE =
            set(3, Wire.ipfixOptionsTemplate(301, 1, 302, 4, 34, 4, 84, 0xffff));

    private final InMemoryTemplateCache cache = new InMemoryTemplateCache();

    private static byte[] text(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return b.length < 255
                ? concat(values(1, b.length), b)
                : concat(values(1, 255), values(2, b.length), b);
    }

    /** A v9 string field of {@code length} bytes, NUL padded. */
    private static byte[] padded(String s, int length) {
        return Arrays.copyOf(s.getBytes(StandardCharsets.UTF_8), length);
    }

    /** A v9 options template: id, scope length and options length in bytes, then the fields. */
    private static byte[] v9OptionsTemplate(int id, int[] scope, int[] fields) {
        ByteBuffer b = ByteBuffer.allocate(6 + 2 * scope.length + 2 * fields.length);
        b.putShort((short) id).putShort((short) (2 * scope.length));
        b.putShort((short) (2 * fields.length));
        for (int v : scope) {
            b.putShort((short) v);
        }
        for (int v : fields) {
            b.putShort((short) v);
        }
        return b.array();
    }

    private DecodeResult decode(NetflowDecoder decoder, byte[] datagram) throws DecodeException {
        return decoder.decode(ByteBuffer.wrap(datagram), CTX, cache);
    }

    @Test
    void ipfixDescriptionsAndSamplerNamesAreKeptByTheirScope() throws Exception {
        byte[] m =
                Wire.ipfix(
                        1,
                        0,
                        IF_TEMPLATE,
                        SAMPLER_TEMPLATE,
                        set(
                                300,
                                concat(
                                        values(4, 7),
                                        text("xe-0/0/1"),
                                        text("transit: AS64500 é"),
                                        values(4, 8),
                                        text("xe-0/0/2"),
                                        text(""))),
                        set(301, concat(values(4, 5), values(4, 1000), text("sampler-1k"))));
        DecodeResult r = decode(new NetflowDecoder(), m);
        assertThat(r.optionsRecords()).isEqualTo(3);
        OptionsData o = cache.options(r.scope());
        assertThat(o.interfaceNames()).isEqualTo(Map.of(7L, "xe-0/0/1", 8L, "xe-0/0/2"));
        assertThat(o.interfaceDescriptions()).isEqualTo(Map.of(7L, "transit: AS64500 é", 8L, ""));
        assertThat(o.samplerNames()).isEqualTo(Map.of(5L, "sampler-1k"));
        assertThat(o.samplingRate(5)).isEqualTo(1000);
        assertThat(TemplateWire.decodeOptions(TemplateWire.encode(o))).isEqualTo(o);
        assertThat(TemplateWire.encode(o)).hasSize(TemplateWire.encodedSize(o));

        // A description sent again unchanged changes nothing; a new one replaces it.
        byte[] again =
                Wire.ipfix(
                        1,
                        1,
                        set(
                                300,
                                concat(
                                        values(4, 7),
                                        text("xe-0/0/1"),
                                        text("transit: AS64500 é"))));
        decode(new NetflowDecoder(), again);
        assertThat(cache.options(r.scope())).isSameAs(o);
        byte[] changed =
                Wire.ipfix(1, 2, set(300, concat(values(4, 7), text("xe-0/0/1"), text("core"))));
        decode(new NetflowDecoder(), changed);
        assertThat(cache.options(r.scope()).interfaceDescriptions()).containsEntry(7L, "core");
    }

    @Test
    void v9FixedLengthStringsLoseTheirPadding() throws Exception {
        byte[] templates =
                set(
                        1,
                        concat(
                                v9OptionsTemplate(
                                        260, new int[] {2, 4}, new int[] {82, 16, 83, 32}),
                                v9OptionsTemplate(
                                        261, new int[] {1, 4}, new int[] {48, 1, 84, 16})));
        byte[] ifData =
                set(260, concat(values(4, 3), padded("Gi0/0/3", 16), padded("uplink to pe1", 32)));
        byte[] samplerData = set(261, concat(values(4, 0), values(1, 9), padded("fnf-1in64", 16)));
        DecodeResult r =
                decode(new NetflowDecoder(), Wire.v9(1, 0, 4, templates, ifData, samplerData));
        assertThat(r.optionsRecords()).isEqualTo(2);
        OptionsData o = cache.options(r.scope());
        assertThat(o.interfaceNames()).isEqualTo(Map.of(3L, "Gi0/0/3"));
        assertThat(o.interfaceDescriptions()).isEqualTo(Map.of(3L, "uplink to pe1"));
        assertThat(o.samplerNames()).isEqualTo(Map.of(9L, "fnf-1in64"));
    }

    @Test
    void descriptionsAreBoundedAsNames() throws Exception {
        NetflowDecoder decoder =
                new NetflowDecoder(
                        new OptionsLimits(16, 2, OptionsLimits.DEFAULT_MAX_BYTES_PER_SCOPE));
        String longDescription = "x".repeat(1000);
        byte[] m =
                Wire.ipfix(
                        1,
                        0,
                        IF_TEMPLATE,
                        set(
                                300,
                                concat(
                                        values(4, 1),
                                        text("a"),
                                        text(longDescription),
                                        values(4, 2),
                                        text("b"),
                                        text("two"),
                                        values(4, 3),
                                        text("c"),
                                        text("three"))));
        DecodeResult r = decode(decoder, m);
        OptionsData o = cache.options(r.scope());
        // Cut to the string limit; the third interface passes the entry limit of each map.
        assertThat(o.interfaceDescriptions()).isEqualTo(Map.of(1L, "x".repeat(16), 2L, "two"));
        assertThat(o.interfaceNames()).isEqualTo(Map.of(1L, "a", 2L, "b"));
        assertThat(r.problemCount(DecodeProblem.Kind.OPTION_TRUNCATED)).isEqualTo(1);
        assertThat(r.problemCount(DecodeProblem.Kind.OPTIONS_LIMIT)).isEqualTo(2);
        assertThat(r.problems())
                .anySatisfy(
                        p ->
                                assertThat(p.message())
                                        .contains("interface description of 1000 bytes cut to 16"));
    }

    @Test
    void descriptionsCountInTheScopeBytes() throws Exception {
        // Room for the empty scope, one name and a little: the description does not fit.
        int room = TemplateWire.encodedSize(OptionsData.EMPTY.withInterfaceName(1, "a")) + 20;
        NetflowDecoder decoder = new NetflowDecoder(new OptionsLimits(255, 100, room));
        byte[] m =
                Wire.ipfix(
                        1,
                        0,
                        IF_TEMPLATE,
                        set(300, concat(values(4, 1), text("a"), text("a description"))));
        DecodeResult r = decode(decoder, m);
        OptionsData o = cache.options(r.scope());
        assertThat(o.interfaceNames()).isEqualTo(Map.of(1L, "a"));
        assertThat(o.interfaceDescriptions()).isEmpty();
        assertThat(r.problemCount(DecodeProblem.Kind.OPTIONS_LIMIT)).isEqualTo(1);
        assertThat(TemplateWire.encodedSize(o)).isLessThanOrEqualTo(room);
    }

    @Test
    void optionsDataWithoutTheNewStringsKeepsItsWireBytes() {
        OptionsData names = OptionsData.EMPTY.withSamplingRate(1, 10).withInterfaceName(2, "eth0");
        byte[] first = TemplateWire.encode(names);
        // The first format's tag, so archives and state written before still compare equal.
        assertThat(first[0]).isEqualTo((byte) 2);
        assertThat(TemplateWire.decodeOptions(first)).isEqualTo(names);
        OptionsData more = names.withInterfaceDescription(2, "lan").withSamplerName(1, "s");
        byte[] second = TemplateWire.encode(more);
        assertThat(second[0]).isEqualTo((byte) 3);
        assertThat(second).hasSize(TemplateWire.encodedSize(more));
        assertThat(TemplateWire.decodeOptions(second)).isEqualTo(more);
    }
}
