// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * VRF ids and names through the production topology with enrichment on: an IPFIX exporter sends its
 * VRF table as options data ({@code VRFname} 236 scoped by {@code ingressVRFID} 234, as Cisco
 * exports it) and flows with {@code ingressVRFID}/{@code egressVRFID} (234, 235), built with the
 * project's IPFIX encoder and read by tshark from a pcap of the same bytes. The {@code flows} rows
 * (through {@code flows_readable}) and the decoded-flows topic (read by the independent Python
 * reader with the published {@code .proto}) carry the ids and the names exactly as tshark reads
 * them; a VRF id the options data never named has an empty name.
 */
class VrfNamesPipelineITCase {

    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.40");
    private static final int PORT = 40_011;
    private static final String RULES =
            """
            exporters:
              - prefix: 192.0.2.0/24
                name: edge-vrf
            """;

    /** Options template 310: ingressVRFID (scope), VRFname (variable length). */
    private static final Template VRF_NAMES =
            new Template(
                    310, List.of(FieldSpecifier.of(234, 4), FieldSpecifier.of(236, 0xffff)), 1);

    /** Data template 320: addresses, octets, packets, start/end ms, ingress and egress VRF id. */
    private static final Template FLOWS =
            new Template(
                    320,
                    List.of(
                            FieldSpecifier.of(8, 4),
                            FieldSpecifier.of(12, 4),
                            FieldSpecifier.of(1, 8),
                            FieldSpecifier.of(2, 8),
                            FieldSpecifier.of(152, 8),
                            FieldSpecifier.of(153, 8),
                            FieldSpecifier.of(234, 4),
                            FieldSpecifier.of(235, 4)),
                    0);

    private static final Map<Long, String> NAMES = new LinkedHashMap<>();

    static {
        NAMES.put(1L, "default");
        NAMES.put(10L, "cust-a:blue");
        NAMES.put(4_000_000_001L, "mgmt-\u00e9");
    }

    /** Each flow's source address (its last byte), ingress VRF id and egress VRF id. */
    private static final long[][] FLOW_VRFS = {
        {1, 10, 1}, {2, 4_000_000_001L, 0}, {3, 0, 10}, {4, 77, 1}, {5, 0, 0}
    };

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension static final MiniClusterExtension FLINK = PipelineHarness.miniCluster();

    @TempDir Path tmp;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void flowsAndTheTopicCarryTheVrfNamesAsTsharkReadsThem() throws Exception {
        ServiceRequirement.requireExecutable("tshark", "apt-get install tshark");
        long now = System.currentTimeMillis();
        List<byte[]> payloads = List.of(optionsData(now), flows(now));
        Map<Long, String> tshark = tsharkNames(payloads);
        assertThat(tshark).as("tshark's VRF table").isEqualTo(NAMES);

        Path rules = Files.writeString(tmp.resolve("rules.yaml"), RULES, StandardCharsets.UTF_8);
        String topic = "flows.decoded.vrf";
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        ch,
                        "vrf",
                        "--kafka.stop",
                        "latest",
                        "--rollup.enabled",
                        "false",
                        "--enrich.rules-file",
                        rules.toString(),
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        topic,
                        "--flows-topic.partitions",
                        "2",
                        "--flows-topic.transactional-id-prefix",
                        "itcase-vrf");
        assertThat(s.enrich().enabled()).isTrue();
        KAFKA.createTopic(s.rawTopic(), 2);
        List<RawDatagram> datagrams = new ArrayList<>();
        for (byte[] p : payloads) {
            datagrams.add(RawDatagram.of(EXPORTER, PORT, now, "itcase", p));
        }
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), datagrams);

        PipelineHarness.environment(s, ch).execute("vrf names");

        List<List<String>> want = new ArrayList<>();
        for (long[] f : FLOW_VRFS) {
            want.add(
                    List.of(
                            "198.51.100." + f[0],
                            Long.toString(f[1]),
                            tshark.getOrDefault(f[1], ""),
                            Long.toString(f[2]),
                            tshark.getOrDefault(f[2], "")));
        }
        List<List<String>> rows =
                ch
                        .queryRows(
                                "SELECT src_ip, in_vrf_id, in_vrf_name, out_vrf_id, out_vrf_name"
                                        + " FROM flowhouse_vrf.flows_readable WHERE exporter_port"
                                        + " = "
                                        + PORT
                                        + " ORDER BY src_ip")
                        .stream()
                        .map(
                                r -> {
                                    // Servers print an IPv4 flow's address IPv4-mapped.
                                    List<String> l = new ArrayList<>(r);
                                    l.set(0, l.get(0).replaceFirst("^::ffff:", ""));
                                    return l;
                                })
                        .toList();
        assertThat(rows).containsExactlyElementsOf(want);

        List<Map<String, String>> got =
                PythonTopicReader.readFields(
                        KAFKA.bootstrapServers(),
                        topic,
                        tmp,
                        List.of("in_vrf_id", "in_vrf_name", "out_vrf_id", "out_vrf_name"));
        List<List<String>> fromTopic =
                got.stream()
                        .map(
                                r ->
                                        List.of(
                                                r.get("src_addr"),
                                                r.get("in_vrf_id"),
                                                r.get("in_vrf_name"),
                                                r.get("out_vrf_id"),
                                                r.get("out_vrf_name")))
                        .sorted((a, b) -> a.get(0).compareTo(b.get(0)))
                        .toList();
        assertThat(fromTopic).containsExactlyElementsOf(want);
    }

    private static byte[] optionsData(long now) {
        return ipfix(
                now,
                m -> {
                    m.template(VRF_NAMES).data(VRF_NAMES.templateId());
                    for (Map.Entry<Long, String> e : NAMES.entrySet()) {
                        m.u32(e.getKey()).varString(e.getValue()).endRecord();
                    }
                });
    }

    private static byte[] flows(long now) {
        return ipfix(
                now,
                m -> {
                    m.template(FLOWS).data(FLOWS.templateId());
                    for (long[] f : FLOW_VRFS) {
                        m.ipv4(IpAddress.parse("198.51.100." + f[0]))
                                .ipv4(IpAddress.parse("203.0.113.1"))
                                .u64(1_500)
                                .u64(3)
                                .u64(now - 2_000)
                                .u64(now - 1_000)
                                .u32(f[1])
                                .u32(f[2])
                                .endRecord();
                    }
                });
    }

    private static byte[] ipfix(long now, Consumer<IpfixEncoder.Message> body) {
        ByteBuffer b = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        IpfixEncoder.Message m = new IpfixEncoder().begin(b, 1, now / 1000);
        body.accept(m);
        return Arrays.copyOf(b.array(), m.finish());
    }

    /** tshark's reading of the options data: VRF name by ingressVRFID. */
    private Map<Long, String> tsharkNames(List<byte[]> payloads) throws Exception {
        Path pcap = tmp.resolve("vrf.pcap");
        try (PcapWriter w = PcapWriter.create(pcap, false)) {
            long t = 1_705_320_000_000_000_000L;
            for (byte[] p : payloads) {
                w.writeUdp(
                        t += 1_000_000L,
                        EXPORTER,
                        PORT,
                        IpAddress.parse("192.0.2.1"),
                        4739,
                        ByteBuffer.wrap(p));
            }
        }
        Process p =
                new ProcessBuilder(
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
                                "cflow.vrfname",
                                "-Y",
                                "cflow.vrfname")
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<String> lines = out.strip().lines().toList();
        assertThat(lines).as("tshark: " + out).hasSize(1);
        String[] f = lines.get(0).split("\t", -1);
        String[] ids = f[0].split(",");
        String[] names = f[1].split(",");
        assertThat(names).hasSameSizeAs(ids);
        Map<Long, String> m = new TreeMap<>();
        for (int i = 0; i < ids.length; i++) {
            m.put(Long.parseLong(ids[i]), names[i]);
        }
        return new LinkedHashMap<>(m);
    }
}
