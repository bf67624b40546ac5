// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static io.flowhouse.codec.Wire.concat;
import static io.flowhouse.codec.Wire.set;
import static io.flowhouse.codec.Wire.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateWire;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VRF ids of data records ({@code ingressVRFID} 234, {@code egressVRFID} 235) and VRF names of
 * options data ({@code VRFname} 236 scoped by {@code ingressVRFID}, as Cisco exports its VRF
 * table), in IPFIX and NetFlow v9, checked against tshark's decode of the same bytes; the names are
 * bounded as interface names are.
 */
class VrfNamesITCase {

    private static final DecodeContext CTX =
            new DecodeContext(new ExporterKey(IpAddress.parse("192.0.2.9"), 4739), 0);

    /** Data template 256: addresses, bytes, packets, ingressVRFID, egressVRFID. */
    private static final byte[] DATA_TEMPLATE =
            set(2, Wire.template(256, 8, 4, 12, 4, 1, 8, 2, 8, 234, 4, 235, 4));

    /** Options template 310: ingressVRFID (scope), VRFname (variable length). */
    private static final byte[] VRF_TEMPLATE =
            set(3, Wire.ipfixOptionsTemplate(310, 1, 234, 4, 236, 0xffff));

    private static final Map<Long, String> NAMES = new LinkedHashMap<>();

    static {
        NAMES.put(1L, "default");
        NAMES.put(10L, "cust-a:blue");
        NAMES.put(4_000_000_001L, "mgmt-é");
    }

    @TempDir Path dir;

    private final InMemoryTemplateCache cache = new InMemoryTemplateCache();

    private static byte[] text(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return concat(values(1, b.length), b);
    }

    private static byte[] flow(int src, int dst, long bytes, long inVrf, long outVrf) {
        return concat(values(4, src, dst), values(8, bytes, 1), values(4, inVrf, outVrf));
    }

    private static List<byte[]> ipfixDatagrams() {
        List<byte[]> names = new ArrayList<>();
        for (Map.Entry<Long, String> e : NAMES.entrySet()) {
            names.add(concat(values(4, e.getKey()), text(e.getValue())));
        }
        return List.of(
                Wire.ipfix(
                        3,
                        0,
                        DATA_TEMPLATE,
                        VRF_TEMPLATE,
                        set(310, concat(names.toArray(new byte[0][])))),
                Wire.ipfix(
                        3,
                        1,
                        set(
                                256,
                                concat(
                                        flow(0x0a000001, 0x0a000002, 1500, 10, 1),
                                        flow(0x0a000003, 0x0a000004, 40, 4_000_000_001L, 0),
                                        flow(0x0a000005, 0x0a000006, 99, 0, 10)))));
    }

    @Test
    void ipfixVrfIdsAndNamesMatchTshark() throws Exception {
        List<byte[]> datagrams = ipfixDatagrams();
        List<FlowRecord> flows = new ArrayList<>();
        DecodeResult first = null;
        for (byte[] d : datagrams) {
            DecodeResult r = new NetflowDecoder().decode(ByteBuffer.wrap(d), CTX, cache);
            first = first == null ? r : first;
            flows.addAll(r.records());
        }
        OptionsData o = cache.options(first.scope());
        assertThat(o.vrfNames()).isEqualTo(NAMES);
        assertThat(TemplateWire.decodeOptions(TemplateWire.encode(o))).isEqualTo(o);
        assertThat(TemplateWire.encode(o)).hasSize(TemplateWire.encodedSize(o));
        assertThat(flows)
                .extracting(FlowRecord::inputVrfId, FlowRecord::outputVrfId)
                .map(t -> Arrays.asList(t.toArray()))
                .containsExactly(List.of(10L, 1L), List.of(4_000_000_001L, 0L), List.of(0L, 10L));

        ExternalTool.require("tshark", "-v");
        Path pcap = dir.resolve("vrf.pcap");
        try (PcapWriter w = PcapWriter.create(pcap, false)) {
            long t = 1_705_320_000_000_000_000L;
            for (byte[] d : datagrams) {
                w.writeUdp(
                        t += 1_000_000L,
                        IpAddress.parse("192.0.2.9"),
                        50000,
                        IpAddress.parse("192.0.2.1"),
                        4739,
                        ByteBuffer.wrap(d));
            }
        }
        // One line per frame; tshark separates a field's occurrences with commas.
        List<String> lines =
                ExternalTool.run(
                                60,
                                "tshark",
                                "-r",
                                pcap.toString(),
                                "-d",
                                "udp.port==4739,cflow",
                                "-T",
                                "fields",
                                "-E",
                                "occurrence=a",
                                "-e",
                                "cflow.ingress_vrfid",
                                "-e",
                                "cflow.egress_vrfid",
                                "-e",
                                "cflow.vrfname")
                        .lines()
                        .toList();
        assertThat(lines).hasSize(2);
        String[] options = lines.get(0).split("\t", -1);
        List<String> tsharkNames = List.of(options[2].split(","));
        assertThat(List.of(options[0].split(",")))
                .containsExactlyElementsOf(NAMES.keySet().stream().map(String::valueOf).toList());
        assertThat(tsharkNames).containsExactlyElementsOf(NAMES.values());
        String[] data = lines.get(1).split("\t", -1);
        assertThat(List.of(data[0].split(",")))
                .containsExactlyElementsOf(
                        flows.stream().map(f -> String.valueOf(f.inputVrfId())).toList());
        assertThat(List.of(data[1].split(",")))
                .containsExactlyElementsOf(
                        flows.stream().map(f -> String.valueOf(f.outputVrfId())).toList());
    }

    @Test
    void v9VrfNamesScopedByVrfIdAndFlowsWithVrfIds() throws Exception {
        // Cisco's v9 VRF table: ingressVRFID as the scope field, VRFname NUL padded to 32 bytes.
        ByteBuffer t = ByteBuffer.allocate(14);
        t.putShort((short) 261).putShort((short) 4).putShort((short) 4);
        t.putShort((short) 234).putShort((short) 4).putShort((short) 236).putShort((short) 32);
        byte[] templates =
                concat(
                        set(1, t.array()),
                        set(0, Wire.template(262, 8, 4, 12, 4, 1, 4, 2, 4, 234, 4, 235, 4)));
        byte[] names =
                set(
                        261,
                        concat(
                                values(4, 7),
                                Arrays.copyOf("red".getBytes(StandardCharsets.UTF_8), 32)));
        byte[] data = set(262, concat(values(4, 0x0a000001, 0x0a000002, 100, 1, 7, 8)));
        DecodeResult r =
                new NetflowDecoder()
                        .decode(
                                ByteBuffer.wrap(Wire.v9(1, 0, 4, templates, names, data)),
                                CTX,
                                cache);
        assertThat(cache.options(r.scope()).vrfNames()).isEqualTo(Map.of(7L, "red"));
        assertThat(r.records()).hasSize(1);
        assertThat(r.records().get(0).inputVrfId()).isEqualTo(7L);
        assertThat(r.records().get(0).outputVrfId()).isEqualTo(8L);
    }

    @Test
    void vrfNamesAreBoundedAsInterfaceNames() throws Exception {
        NetflowDecoder decoder =
                new NetflowDecoder(
                        new OptionsLimits(8, 2, OptionsLimits.DEFAULT_MAX_BYTES_PER_SCOPE));
        byte[] m =
                Wire.ipfix(
                        3,
                        0,
                        VRF_TEMPLATE,
                        set(
                                310,
                                concat(
                                        values(4, 1),
                                        text("a-very-long-vrf-name"),
                                        values(4, 2),
                                        text("two"),
                                        values(4, 3),
                                        text("three"))));
        DecodeResult r = decoder.decode(ByteBuffer.wrap(m), CTX, cache);
        OptionsData o = cache.options(r.scope());
        assertThat(o.vrfNames()).isEqualTo(Map.of(1L, "a-very-l", 2L, "two"));
        assertThat(r.problemCount(DecodeProblem.Kind.OPTION_TRUNCATED)).isEqualTo(1);
        assertThat(r.problemCount(DecodeProblem.Kind.OPTIONS_LIMIT)).isEqualTo(1);
        assertThat(r.problems())
                .anySatisfy(p -> assertThat(p.message()).contains("VRF name of 20 bytes cut to 8"))
                .anySatisfy(p -> assertThat(p.message()).contains("VRF name 3 refused"));
    }

    @Test
    void optionsDataWithoutVrfNamesKeepsItsWireFormat() {
        OptionsData o = OptionsData.EMPTY.withInterfaceName(2, "eth0").withSamplerName(1, "s");
        byte[] before = TemplateWire.encode(o);
        assertThat(before[0]).isEqualTo((byte) 3);
        OptionsData withVrf = o.withVrfName(5, "blue");
        byte[] after = TemplateWire.encode(withVrf);
        assertThat(after[0]).isEqualTo((byte) 4);
        assertThat(TemplateWire.decodeOptions(after)).isEqualTo(withVrf);
        assertThat(TemplateWire.decodeOptions(before)).isEqualTo(o);
    }
}
