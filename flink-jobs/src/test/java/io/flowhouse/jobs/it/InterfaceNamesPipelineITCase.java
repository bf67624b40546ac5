// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.snmp.Snmpd;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production topology with the interface sources on: Debian's {@code snmpd} (started here on a
 * free port) answers for one exporter's ifIndexes, and softflowd's NetFlow v9 capture carries an
 * interface name in its options data. The {@code flows} rows carry the names exactly as {@code
 * snmpwalk} and {@code tshark} read them. A third exporter sends IPFIX options data with interface
 * names and descriptions (IE 82 and 83): its rows carry both. A fourth replays softflowd's IPFIX
 * capture, whose name is scoped by {@code meteringProcessId}, not by an ifIndex: its rows carry
 * that name on the interface softflowd observes (the ifIndex of all its flows), as tshark reads it.
 */
class InterfaceNamesPipelineITCase {

    private static final int PORT_OPTIONS = 40_001;
    private static final int PORT_SNMP = 40_002;
    private static final int PORT_DESCRIPTIONS = 40_003;
    private static final int PORT_OBSERVED = 40_004;
    private static final String V9 = "netflow-v9-softflowd.pcap";
    private static final String IPFIX = "ipfix-softflowd.pcap";
    private static final int V9_HEADER = 20;
    private static final int IPFIX_HEADER = 16;
    private static final String IF_NAME_OID = "1.3.6.1.2.1.31.1.1.1.1";

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void flowsCarryTheNamesOfSnmpAndOptionsData() throws Exception {
        ServiceRequirement.requireExecutable("tshark", "apt-get install tshark");
        String optionsName = TsharkIfName.of(V9);
        String observedName = TsharkIfName.of(IPFIX);
        try (Snmpd snmpd = Snmpd.start(Files.createDirectories(tmp.resolve("snmpd")))) {
            Map<Long, String> ifNames = snmpd.walk(snmpd.v2c(), IF_NAME_OID);
            String sysName = snmpd.get(snmpd.v2c(), "1.3.6.1.2.1.1.5.0");
            assertThat(ifNames).isNotEmpty();
            Path credentials =
                    Files.writeString(
                            tmp.resolve("snmp.yaml"),
                            "credentials:\n  - cidr: 192.0.2.20/32\n    community: "
                                    + Snmpd.COMMUNITY
                                    + "\n");
            LocalClickHouse ch = CLICKHOUSE.local();
            PipelineSettings s =
                    PipelineHarness.settings(
                            KAFKA.bootstrapServers(),
                            ch,
                            "ifn",
                            "--enrich.snmp.credentials-file",
                            credentials.toString(),
                            "--enrich.snmp.agents",
                            "192.0.2.20=" + snmpd.address(),
                            "--enrich.snmp.timeout",
                            "1 s");
            assertThat(s.enrich().enabled()).isTrue();
            KAFKA.createTopic(s.rawTopic(), 2);

            IpAddress optionsExporter = IpAddress.parse("192.0.2.10");
            List<RawDatagram> capture =
                    CaptureProducer.datagrams(V9, optionsExporter, PORT_OPTIONS);
            int first = firstWithOptionsData(capture, V9_HEADER);
            long lastWarmSequence = sequence(capture.get(first), 12);
            List<RawDatagram> observed =
                    CaptureProducer.datagrams(IPFIX, IpAddress.parse("192.0.2.40"), PORT_OBSERVED);
            int firstObserved = firstWithOptionsData(observed, IPFIX_HEADER);
            long lastWarmObserved = sequence(observed.get(firstObserved), 8);

            StreamExecutionEnvironment env = PipelineHarness.environment(s, ch);
            JobClient job = env.executeAsync("interface names");
            try {
                // Warm up: the options data, and v5 flows of the SNMP exporter until its first
                // poll has answered (the poll starts when the first flow is seen).
                CaptureProducer.produce(
                        KAFKA.bootstrapServers(), s.rawTopic(), capture.subList(0, first + 1));
                CaptureProducer.produce(
                        KAFKA.bootstrapServers(), s.rawTopic(), List.of(ipfixDescriptions()));
                CaptureProducer.produce(
                        KAFKA.bootstrapServers(),
                        s.rawTopic(),
                        observed.subList(0, firstObserved + 1));
                List<Long> ifIndexes = new ArrayList<>(new TreeSet<>(ifNames.keySet()));
                long sequence = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (count(ch, "exporter_port = " + PORT_SNMP + " AND exporter_name != ''")
                        == 0) {
                    assertThat(System.nanoTime()).as("first SNMP answer").isLessThan(deadline);
                    CaptureProducer.produce(
                            KAFKA.bootstrapServers(),
                            s.rawTopic(),
                            List.of(v5(ifIndexes, sequence, 1_000)));
                    sequence += ifIndexes.size();
                    Thread.sleep(500);
                }
                // Measured: the rest of the capture and v5 flows over every interface.
                List<RawDatagram> measured =
                        new ArrayList<>(capture.subList(first + 1, capture.size()));
                int v5Datagrams = 5;
                for (int i = 0; i < v5Datagrams; i++) {
                    measured.add(v5(ifIndexes, 1_000_000 + i * ifIndexes.size(), 40_000));
                }
                measured.add(ipfixFlow());
                measured.addAll(observed.subList(firstObserved + 1, observed.size()));
                CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), measured);
                String snmpRows = "exporter_port = " + PORT_SNMP + " AND src_port >= 40000";
                String optionRows =
                        "exporter_port = "
                                + PORT_OPTIONS
                                + " AND sequence_number > "
                                + lastWarmSequence;
                long expectedSnmp = (long) v5Datagrams * ifIndexes.size();
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                String descriptionRows = "exporter_port = " + PORT_DESCRIPTIONS;
                String observedRows =
                        "exporter_port = "
                                + PORT_OBSERVED
                                + " AND sequence_number > "
                                + lastWarmObserved;
                while (count(ch, snmpRows) < expectedSnmp
                        || count(ch, optionRows) == 0
                        || count(ch, descriptionRows) == 0
                        || count(ch, observedRows) == 0) {
                    assertThat(System.nanoTime()).as("measured rows").isLessThan(deadline);
                    Thread.sleep(500);
                }
                Thread.sleep(3_000); // the capture's last rows
                assertThat(count(ch, snmpRows)).isEqualTo(expectedSnmp);
                assertSnmpNames(ch, snmpRows, expectedSnmp, ifNames, sysName);
                // Every measured capture row: the options data's name of its ifIndex (0), as
                // tshark reads it, and no SNMP for that exporter.
                assertThat(
                                ch.queryRows(
                                        "SELECT DISTINCT in_if, in_if_name, out_if, out_if_name,"
                                                + " exporter_name FROM flowhouse_ifn.flows WHERE "
                                                + optionRows))
                        .containsExactly(List.of("0", optionsName, "0", optionsName, ""));
                // Every measured row of softflowd's IPFIX: the name of its meteringProcessId-scoped
                // options on the one interface it observes, as tshark reads it.
                assertThat(
                                ch.queryRows(
                                        "SELECT DISTINCT in_if, in_if_name, out_if, out_if_name"
                                                + " FROM flowhouse_ifn.flows WHERE "
                                                + observedRows))
                        .containsExactly(List.of("0", observedName, "0", observedName));
                // The IPFIX exporter's row: names and descriptions from its options data.
                assertThat(
                                ch.queryRows(
                                        "SELECT in_if, in_if_name, in_if_description, out_if,"
                                                + " out_if_name, out_if_description FROM"
                                                + " flowhouse_ifn.flows WHERE "
                                                + descriptionRows))
                        .containsExactly(
                                List.of(
                                        "11",
                                        "xe-0/0/11",
                                        "transit: AS64500",
                                        "12",
                                        "",
                                        "core link"));
            } finally {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Every measured row of the SNMP exporter names both interfaces as snmpwalk reads them, and
     * {@code exporter_stats} names that exporter by its sysName (the options exporter: '').
     */
    private static void assertSnmpNames(
            LocalClickHouse ch,
            String snmpRows,
            long expectedSnmp,
            Map<Long, String> ifNames,
            String sysName)
            throws Exception {
        // Every measured SNMP row: both interfaces named as snmpwalk reads them.
        List<List<String>> rows =
                ch.queryRows(
                        "SELECT in_if, in_if_name, out_if, out_if_name, exporter_name"
                                + " FROM flowhouse_ifn.flows WHERE "
                                + snmpRows);
        assertThat(rows).hasSize((int) expectedSnmp);
        for (List<String> r : rows) {
            assertThat(r.get(1))
                    .as("in " + r.get(0))
                    .isEqualTo(ifNames.get(Long.parseLong(r.get(0))));
            assertThat(r.get(3))
                    .as("out " + r.get(2))
                    .isEqualTo(ifNames.get(Long.parseLong(r.get(2))));
            assertThat(r.get(4)).isEqualTo(sysName);
        }
        // exporter_stats names the SNMP exporter by its sysName (V010), the other ''.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String named =
                "SELECT count() FROM flowhouse_ifn.exporter_stats WHERE exporter_port = "
                        + PORT_SNMP
                        + " AND exporter_name = '"
                        + sysName.replace("'", "\\'")
                        + "'";
        String options =
                "SELECT count() FROM flowhouse_ifn.exporter_stats WHERE exporter_port = "
                        + PORT_OPTIONS;
        // Both exporters' rows: a loaded machine writes one window's rows later than another's.
        while (Long.parseLong(ch.query(named).get(0).trim()) == 0
                || Long.parseLong(ch.query(options).get(0).trim()) == 0) {
            assertThat(System.nanoTime()).as("exporter_stats rows").isLessThan(deadline);
            Thread.sleep(500);
        }
        assertThat(
                        ch.query(
                                "SELECT DISTINCT exporter_name FROM"
                                        + " flowhouse_ifn.exporter_stats WHERE"
                                        + " exporter_port = "
                                        + PORT_OPTIONS))
                .containsExactly("");
    }

    /** Rows matching {@code where}; 0 while the job's sink has not made its tables yet. */
    private static long count(LocalClickHouse ch, String where) throws Exception {
        String migrated =
                "SELECT count() FROM system.columns WHERE database = 'flowhouse_ifn'"
                        + " AND table = 'flows' AND name = 'out_if_name'";
        if (!ch.query(migrated).get(0).trim().equals("1")) {
            return 0;
        }
        return Long.parseLong(
                ch.query("SELECT count() FROM flowhouse_ifn.flows WHERE " + where).get(0).trim());
    }

    /**
     * The first datagram with a data set of options template 256 (softflowd's), its sets after a
     * {@code header} of that many bytes.
     */
    private static int firstWithOptionsData(List<RawDatagram> datagrams, int header) {
        for (int i = 0; i < datagrams.size(); i++) {
            ByteBuffer b = ByteBuffer.wrap(datagrams.get(i).payload());
            int pos = header;
            while (pos + 4 <= b.limit()) {
                int id = b.getShort(pos) & 0xffff;
                int length = b.getShort(pos + 2) & 0xffff;
                if (id == 256) {
                    return i;
                }
                if (length < 4) {
                    break;
                }
                pos += length;
            }
        }
        throw new AssertionError("no options data in the capture");
    }

    /** The header's sequence number, at {@code offset} (v9 12, IPFIX 8). */
    private static long sequence(RawDatagram d, int offset) {
        return ByteBuffer.wrap(d.payload()).getInt(offset) & 0xffffffffL;
    }

    /**
     * A NetFlow v5 datagram from 192.0.2.20: one flow per ifIndex, in on it and out on the next,
     * from source port {@code srcPort}.
     */
    private static RawDatagram v5(List<Long> ifIndexes, long sequence, int srcPort) {
        long now = System.currentTimeMillis();
        int n = ifIndexes.size();
        ByteBuffer b = ByteBuffer.allocate(24 + 48 * n);
        b.putShort((short) 5).putShort((short) n).putInt(100_000);
        b.putInt((int) (now / 1000)).putInt((int) (now % 1000 * 1_000_000));
        b.putInt((int) sequence).put((byte) 0).put((byte) 0).putShort((short) 0);
        for (int i = 0; i < n; i++) {
            b.put(new byte[] {(byte) 198, 51, 100, (byte) (i + 1)});
            b.put(new byte[] {(byte) 203, 0, 113, (byte) (i + 1)});
            b.putInt(0);
            b.putShort(ifIndexes.get(i).shortValue());
            b.putShort(ifIndexes.get((i + 1) % n).shortValue());
            b.putInt(3).putInt(300).putInt(99_000).putInt(99_500);
            b.putShort((short) (srcPort + i)).putShort((short) 443);
            b.put((byte) 0).put((byte) 0x10).put((byte) 6).put((byte) 0);
            b.putShort((short) 0)
                    .putShort((short) 0)
                    .put((byte) 24)
                    .put((byte) 24)
                    .putShort((short) 0);
        }
        return RawDatagram.of(IpAddress.parse("192.0.2.20"), PORT_SNMP, now, "itcase", b.array());
    }

    /**
     * IPFIX from 192.0.2.30: options template 300 (ingressInterface scope, interfaceName,
     * interfaceDescription) and its data: ifIndex 11 named and described, 12 described only.
     */
    private static RawDatagram ipfixDescriptions() {
        ByteBuffer t = ByteBuffer.allocate(4 + 6 + 12);
        t.putShort((short) 3).putShort((short) t.capacity());
        t.putShort((short) 300).putShort((short) 3).putShort((short) 1);
        t.putShort((short) 10).putShort((short) 4);
        t.putShort((short) 82).putShort((short) 0xffff);
        t.putShort((short) 83).putShort((short) 0xffff);
        byte[] records =
                concat(
                        optionsRecord(11, "xe-0/0/11", "transit: AS64500"),
                        optionsRecord(12, "", "core link"));
        ByteBuffer d = ByteBuffer.allocate(4 + records.length);
        d.putShort((short) 300).putShort((short) d.capacity()).put(records);
        return ipfix(0, t.array(), d.array());
    }

    private static byte[] optionsRecord(long ifIndex, String name, String description) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] dsc = description.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + 1 + n.length + 1 + dsc.length)
                .putInt((int) ifIndex)
                .put((byte) n.length)
                .put(n)
                .put((byte) dsc.length)
                .put(dsc)
                .array();
    }

    /** IPFIX from 192.0.2.30: a data template and one flow in on ifIndex 11, out on 12. */
    private static RawDatagram ipfixFlow() {
        int[] fields = {8, 4, 12, 4, 7, 2, 11, 2, 4, 1, 10, 4, 14, 4, 1, 8, 2, 8, 152, 8, 153, 8};
        ByteBuffer t = ByteBuffer.allocate(4 + 4 + 2 * fields.length);
        t.putShort((short) 2).putShort((short) t.capacity());
        t.putShort((short) 400).putShort((short) (fields.length / 2));
        for (int f : fields) {
            t.putShort((short) f);
        }
        long now = System.currentTimeMillis();
        ByteBuffer d = ByteBuffer.allocate(4 + 4 + 4 + 2 + 2 + 1 + 4 + 4 + 8 + 8 + 8 + 8);
        d.putShort((short) 400).putShort((short) d.capacity());
        d.put(new byte[] {(byte) 198, 51, 100, 30}).put(new byte[] {(byte) 203, 0, 113, 30});
        d.putShort((short) 50_000).putShort((short) 443).put((byte) 6);
        d.putInt(11).putInt(12).putLong(1_500).putLong(3).putLong(now - 1_000).putLong(now);
        return ipfix(1, t.array(), d.array());
    }

    private static RawDatagram ipfix(long sequence, byte[]... sets) {
        byte[] body = concat(sets);
        long now = System.currentTimeMillis();
        ByteBuffer b = ByteBuffer.allocate(16 + body.length);
        b.putShort((short) 10).putShort((short) b.capacity()).putInt((int) (now / 1000));
        b.putInt((int) sequence).putInt(1).put(body);
        return RawDatagram.of(
                IpAddress.parse("192.0.2.30"), PORT_DESCRIPTIONS, now, "itcase", b.array());
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
