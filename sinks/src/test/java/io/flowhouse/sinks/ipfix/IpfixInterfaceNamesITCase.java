// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.testkit.ServiceRequirement;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interface names to IPFIX collectors: flows of two observation domains go out with their context,
 * and tshark (Wireshark's IPFIX dissector, code nobody here wrote) reads back, per domain, an
 * options template with scope ingressInterface and interfaceName / interfaceDescription, and an
 * options record naming every interface the flows used, again after each template refresh; an
 * interface with no name is never announced; names too long for a record are cut at a character.
 * The bounds (ipfix.max-interfaces, ipfix.interface-name-max-bytes, and what fits a message) are
 * hit with the real exporter and their counters checked against what tshark read.
 */
class IpfixInterfaceNamesITCase {

    @TempDir Path dir;

    private static final int UNNAMED = 9;

    /** Domain 1 and 2 name the same ifIndex differently, as two routers do. */
    private static InterfaceContext iface(long domain, long ifIndex) {
        if (ifIndex == UNNAMED) {
            return InterfaceContext.UNKNOWN;
        }
        String description = ifIndex == 4 ? "a" + "ü".repeat(100) : "uplink " + ifIndex + " grün";
        return new InterfaceContext(
                "r" + domain + "-ge-0/0/" + ifIndex,
                description,
                10_000,
                Boundary.EXTERNAL,
                "",
                "");
    }

    private static List<Object[]> flows() {
        List<Object[]> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 600; i++) {
            long domain = 1 + i % 2;
            long in = 1 + i % 5;
            long outIf = i % 7 == 0 ? UNNAMED : 1 + (i / 5) % 5;
            FlowRecord f =
                    FlowRecord.builder()
                            .version(10)
                            .exporterAddress(IpAddress.parse("192.0.2.1"))
                            .observationDomainId(domain)
                            .ipVersion(4)
                            .srcAddr(IpAddress.ofIpv4(0x0a00_0000 + i))
                            .dstAddr(IpAddress.ofIpv4(0x0a01_0000 + i))
                            .srcPort(1024 + i)
                            .dstPort(443)
                            .protocol(6)
                            .bytes(1000 + i)
                            .packets(1 + i % 10)
                            .flowStartMillis(now - 1000)
                            .flowEndMillis(now)
                            .inputInterface(in)
                            .outputInterface(outIf)
                            .build();
            FlowContext c =
                    new FlowContext(
                            Attributes.NONE,
                            iface(domain, in),
                            iface(domain, outIf),
                            "",
                            "",
                            64_500,
                            15_169,
                            Attributes.NONE,
                            Attributes.NONE);
            out.add(new Object[] {f, c});
        }
        return out;
    }

    @Test
    void tsharkReadsTheNamesOfEveryInterfacePerDomain() throws Exception {
        List<Object[]> flows = flows();
        IpfixExporter.Metrics m =
                export(IpfixExporterOptions.builder().templateRefreshMessages(4), flows);
        assertThat(m.recordsSent()).isEqualTo(flows.size());
        Announced a = Announced.parse(tsharkVerbose());

        Map<String, String> want = new TreeMap<>();
        for (long domain = 1; domain <= 2; domain++) {
            for (long ifIndex = 1; ifIndex <= 5; ifIndex++) {
                InterfaceContext i = iface(domain, ifIndex);
                String description =
                        ifIndex == 4 ? "a" + "ü".repeat(63) : i.description(); // cut at 128 bytes
                want.put(domain + "/" + ifIndex, i.name() + " | " + description);
            }
        }
        // Every named interface of each domain, under its own domain's name; never the unnamed one.
        assertThat(a.names).isEqualTo(want);
        assertThat(a.conflicting).as("one name per domain and ifIndex").isEmpty();
        // Re-sent after the template refreshes (every 4 messages): each name more than once.
        assertThat(a.interfaceTemplates).containsOnlyKeys("1", "2");
        assertThat(a.interfaceTemplates.values()).allSatisfy(n -> assertThat(n).isGreaterThan(1));
        assertThat(a.count.keySet()).isEqualTo(want.keySet());
        assertThat(a.count.values()).allSatisfy(n -> assertThat(n).isGreaterThan(1));
        // Within the default bounds: only interface 4's long description was cut, once per record
        // tshark read; no interface forgotten.
        assertThat(m.interfaceNamesCut()).isEqualTo(a.count.get("1/4") + a.count.get("2/4"));
        assertThat(m.interfacesForgotten()).isZero();
    }

    /**
     * Both bounds hit: three interfaces take turns in one domain with room for two, and names and
     * descriptions longer than the configured bytes. Each flow's interface was forgotten, so its
     * name goes out again with it (no template refresh in between), cut at a character boundary;
     * the counters match what tshark read.
     */
    @Test
    void boundsCutNamesAndForgetInterfacesAsCounted() throws Exception {
        List<Object[]> flows = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long ifIndex = 1 + i % 3;
            InterfaceContext named =
                    new InterfaceContext(
                            "ge-0/0/" + ifIndex + "-uplink",
                            "123456789ü" + ifIndex, // the 10th byte is inside the ü
                            10_000,
                            Boundary.EXTERNAL,
                            "",
                            "");
            flows.add(
                    new Object[] {
                        flow(i, 7, ifIndex, 0), context(named, InterfaceContext.UNKNOWN)
                    });
        }
        IpfixExporter.Metrics m =
                export(
                        IpfixExporterOptions.builder().maxInterfaces(2).interfaceNameMaxBytes(10),
                        flows);
        Announced a = Announced.parse(tsharkVerbose());

        assertThat(a.interfaceTemplates).containsExactly(Map.entry("7", 1));
        assertThat(a.names)
                .containsExactly(
                        Map.entry("7/1", "ge-0/0/1-u | 123456789"),
                        Map.entry("7/2", "ge-0/0/2-u | 123456789"),
                        Map.entry("7/3", "ge-0/0/3-u | 123456789"));
        int announced = a.count.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(announced).as("every flow's interface announced again").isEqualTo(30);
        assertThat(m.interfacesForgotten()).isEqualTo(announced - 2);
        assertThat(m.interfaceNamesCut()).isEqualTo(2L * announced);
        assertThat(m.recordsSent()).isEqualTo(30);
    }

    /**
     * The smallest message (512 bytes) with the longest names the key allows: the names are cut to
     * what fits beside the templates and a flow, and every message is well formed for tshark.
     */
    @Test
    void namesTooLongForTheMessageAreCutToFit() throws Exception {
        int fits = IpfixExporter.fittingNameBytes(512);
        assertThat(fits).isBetween(1, 127);
        assertThat(IpfixExporter.fittingNameBytes(1400)).isGreaterThanOrEqualTo(128);
        String longName = "x".repeat(IpfixExporterOptions.MAX_INTERFACE_NAME_BYTES);
        InterfaceContext in =
                new InterfaceContext(longName, longName, 10_000, Boundary.EXTERNAL, "", "");
        InterfaceContext out =
                new InterfaceContext("y" + longName, longName, 10_000, Boundary.EXTERNAL, "", "");
        List<Object[]> flows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            FlowRecord v6 =
                    flow(i, 3, 1, 2).toBuilder()
                            .ipVersion(6)
                            .srcAddr(IpAddress.parse("2001:db8::" + Integer.toHexString(i + 1)))
                            .dstAddr(IpAddress.parse("2001:db8:1::1"))
                            .samplingRate(100 + i)
                            .build();
            flows.add(new Object[] {v6, context(in, out)});
        }
        IpfixExporter.Metrics m =
                export(
                        IpfixExporterOptions.builder()
                                .maxMessageBytes(512)
                                .interfaceNameMaxBytes(
                                        IpfixExporterOptions.MAX_INTERFACE_NAME_BYTES),
                        flows);
        assertThat(m.recordsSent()).isEqualTo(20);
        Announced a = Announced.parse(tsharkVerbose());
        assertThat(a.names)
                .containsExactly(
                        Map.entry("3/1", "x".repeat(fits) + " | " + "x".repeat(fits)),
                        Map.entry("3/2", "y" + "x".repeat(fits - 1) + " | " + "x".repeat(fits)));
        // Name and description of each options record cut, both interfaces once each.
        assertThat(a.count).containsOnlyKeys("3/1", "3/2");
        assertThat(m.interfaceNamesCut())
                .isEqualTo(2L * a.count.values().stream().mapToInt(Integer::intValue).sum());
    }

    private static FlowRecord flow(int i, long domain, long in, long out) {
        long now = System.currentTimeMillis();
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.1"))
                .observationDomainId(domain)
                .ipVersion(4)
                .srcAddr(IpAddress.ofIpv4(0x0a00_0000 + i))
                .dstAddr(IpAddress.ofIpv4(0x0a01_0000 + i))
                .srcPort(1024 + i)
                .dstPort(443)
                .protocol(6)
                .bytes(1000 + i)
                .packets(1 + i % 10)
                .flowStartMillis(now - 1000)
                .flowEndMillis(now)
                .inputInterface(in)
                .outputInterface(out)
                .build();
    }

    private static FlowContext context(InterfaceContext in, InterfaceContext out) {
        return new FlowContext(
                Attributes.NONE, in, out, "", "", 64_500, 15_169, Attributes.NONE, Attributes.NONE);
    }

    /**
     * Exports the flows with the options of {@code b} to a tap and writes what arrived to {@code
     * names.pcap}; nothing may be dropped.
     */
    private IpfixExporter.Metrics export(IpfixExporterOptions.Builder b, List<Object[]> flows)
            throws Exception {
        Path pcap = dir.resolve("names.pcap");
        IpfixExporter.Metrics m;
        try (UdpTap tap = new UdpTap()) {
            IpfixExporterOptions o = b.target("127.0.0.1:" + tap.port()).build();
            try (IpfixExporter exporter = new IpfixExporter(o.targets().get(0), o)) {
                for (Object[] f : flows) {
                    exporter.export((FlowRecord) f[0], (FlowContext) f[1]);
                }
                exporter.flush();
                m = exporter.metrics();
            }
            assertThat(m.recordsDropped()).isZero();
            long messages = m.messagesSent();
            List<UdpTap.Datagram> got =
                    tap.awaitUntil(d -> d.size() >= messages, Duration.ofSeconds(30));
            PeerCollectors.writePcap(pcap, got);
        }
        return m;
    }

    /** tshark's verbose decode of {@code names.pcap}, after checking it finds nothing malformed. */
    private String tsharkVerbose() throws Exception {
        Path tshark = ServiceRequirement.requireExecutable("tshark", "apt-get install tshark");
        Path pcap = dir.resolve("names.pcap");
        PeerCollectors.assertTsharkFindsNoError(dir, tshark, pcap);
        return PeerCollectors.run(
                dir,
                120,
                List.of(tshark.toString(), "-n", "-r", pcap.toString(), "-V", "-Y", "cflow"));
    }

    /** What tshark's verbose decode shows of the interface options (template 259). */
    private static final class Announced {
        final Map<String, String> names = new TreeMap<>();
        final Map<String, Integer> count = new TreeMap<>();
        final Set<String> conflicting = new TreeSet<>();
        final Map<String, Integer> interfaceTemplates = new HashMap<>();

        static Announced parse(String text) {
            Announced a = new Announced();
            String domain = null;
            boolean inNames = false;
            String ifIndex = null;
            String name = null;
            for (String raw : text.split("\n")) {
                String line = raw.strip();
                if (line.startsWith("Observation Domain Id: ")) {
                    domain = line.substring("Observation Domain Id: ".length());
                } else if (line.startsWith("FlowSet Id: ")) {
                    inNames = line.equals("FlowSet Id: (Data) (259)");
                } else if (line.startsWith("Options Template (Id = 259)")) {
                    a.interfaceTemplates.merge(domain, 1, Integer::sum);
                } else if (inNames && line.startsWith("InputInt: ")) {
                    ifIndex = line.substring("InputInt: ".length());
                } else if (inNames && line.startsWith("IfName: ")) {
                    name = line.substring("IfName: ".length());
                } else if (inNames && line.startsWith("IfDescr: ")) {
                    String key = domain + "/" + ifIndex;
                    String value = name + " | " + line.substring("IfDescr: ".length());
                    String before = a.names.put(key, value);
                    if (before != null && !before.equals(value)) {
                        a.conflicting.add(key);
                    }
                    a.count.merge(key, 1, Integer::sum);
                }
            }
            return a;
        }
    }
}
