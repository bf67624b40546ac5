// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.TestDataDir;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse up} end to end, as a user runs it: the real services, the agent, the job and
 * the console on free ports, then both real sFlow captures replayed over UDP to the agent's sFlow
 * port and a NetFlow v9 capture to its NetFlow port. ClickHouse must hold the captures' ground
 * truth in {@code flows} (testdata/README), and {@code ./flowhouse down} must leave nothing behind.
 * With the job's ASN database set, {@code up} also fills {@code as_names}: one row per AS of the
 * open ASN database, and the names of a sample of its networks equal what libmaxminddb's {@code
 * mmdblookup} reads.
 */
class UpReplayITCase {

    /** Networks of the ASN database whose AS name is compared with mmdblookup's. */
    private static final int SAMPLE = 40;

    @TempDir static Path stateDir;

    private static Path root;
    private static Map<String, String> env;
    private static int netflowPort;
    private static int sflowPort;

    @BeforeAll
    static void locate() {
        root = Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath().normalize();
        List<String> missing = PipelineParts.missingForUp(root);
        ServiceRequirement.require(missing.isEmpty(), "the built pipeline: " + missing);
        ServiceRequirement.require(
                Files.isExecutable(ServicesConfig.defaults(root).clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        int[] tcp = LocalPorts.free(9);
        env = new HashMap<>();
        env.put("FLOWHOUSE_KAFKA_PORT", Integer.toString(tcp[0]));
        env.put("FLOWHOUSE_KAFKA_CONTROLLER_PORT", Integer.toString(tcp[1]));
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(tcp[2]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(tcp[3]));
        env.put("FLOWHOUSE_FLINK_REST_PORT", Integer.toString(tcp[4]));
        env.put("FLOWHOUSE_FLINK_RPC_PORT", Integer.toString(tcp[5]));
        env.put("FLOWHOUSE_FLINK_PROMETHEUS_PORTS", "none");
        env.put("FLOWHOUSE_CONSOLE_LISTEN_PORT", Integer.toString(tcp[6]));
        // UDP ports: free TCP numbers, almost always free for UDP too (up names a conflict).
        netflowPort = tcp[7];
        sflowPort = tcp[8];
    }

    @AfterAll
    static void down() {
        if (root != null) {
            flowhouse("down");
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void sflowAndNetflowReplaysLandWithTheGroundTruth() throws Exception {
        // A rerun of this test (failsafe) starts from what the failed attempt left running.
        flowhouse("down");
        Path asn = GeoTestData.dir().resolve("asn.mmdb");
        int ipfixPort = LocalPorts.free(1, netflowPort, sflowPort)[0];
        int agentMetrics = LocalPorts.free(1, netflowPort, sflowPort, ipfixPort)[0];
        Result up =
                flowhouse(
                        "up",
                        "--netflow-port",
                        Integer.toString(netflowPort),
                        "--ipfix-port",
                        Integer.toString(ipfixPort),
                        "--sflow-port",
                        Integer.toString(sflowPort),
                        "--agent-arg",
                        "--metrics-port " + agentMetrics,
                        // The default decode.quiet-after (30 s) closes the last minute after the
                        // replays; only the rollups' own wait is shortened (default 3 min).
                        "--",
                        "--rollup.max-out-of-orderness",
                        "20s",
                        "--enrich.geoip.asn-database",
                        asn.toString());
        assertThat(up.code()).as(up.toString()).isZero();
        assertThat(up.out()).contains("sFlow v5 to UDP " + sflowPort);
        upLoadedEveryAsNameOfTheAsnDatabase(up, asn);

        InetSocketAddress sflow =
                new InetSocketAddress(InetAddress.getLoopbackAddress(), sflowPort);
        InetSocketAddress netflow =
                new InetSocketAddress(InetAddress.getLoopbackAddress(), netflowPort);
        long sent = replay("sflow-pmacct-rate1.pcap.gz", sflow);
        sent += replay("sflow-ovs-rate10.pcap", sflow);
        sent += replay("netflow-v9-softflowd.pcap", netflow);
        assertThat(sent).isEqualTo(5_770 + 588 + 164);

        // sFlow: every flow sample one row; scaled by the rate, OVS's 4,215 samples at 1:10.
        awaitRows(
                "SELECT count(), sum(packets * sampling_rate), sum(bytes * sampling_rate)"
                        + " FROM flows FINAL WHERE version = 105",
                "46388\t84323\t64120691");
        // NetFlow v9 from softflowd: the packet trace's every packet and byte.
        awaitRows(
                "SELECT count(), sum(packets), sum(bytes) FROM flows FINAL WHERE version = 9",
                "2991\t42173\t31011641");
        // Every datagram counted once per version.
        awaitRows(
                "SELECT version, sum(datagrams) FROM exporter_stats FINAL GROUP BY version"
                        + " ORDER BY version",
                "9\t164\n105\t6358");
        // The rollups, once the captures' minutes close: one interface row per flow (its input
        // interface, direction 0), scaled by the sampling rate. sFlow samples carry no time, so
        // they fall in the receive minute; after the replays the stream is quiet, and that minute
        // closes on the wall clock (decode.quiet-after, flink-jobs/README.md).
        awaitRows(
                "SELECT sum(flows), sum(packets), sum(bytes) FROM flows_1m FINAL"
                        + " WHERE kind = 'interface' AND direction = 0",
                "49379\t126496\t95132332");
    }

    /**
     * Sends a capture's UDP payloads from one socket, paced, to {@code target}; returns the count.
     */
    private static long replay(String file, InetSocketAddress target) throws IOException {
        Path pcap = TestDataDir.file(file);
        Path tmp = null;
        if (file.endsWith(".gz")) {
            tmp = Files.createTempFile("flowhouse-up-replay-", ".pcap");
            try (InputStream in = new GZIPInputStream(Files.newInputStream(pcap), 1 << 16)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            pcap = tmp;
        }
        long n = 0;
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        try (PcapReader reader = PcapReader.open(pcap);
                DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            long next = System.nanoTime();
            while (reader.next()) {
                UdpDatagram d =
                        extractor.extract(
                                reader.packetLinkType(), reader.packet(), reader.timestampNanos());
                if (d == null) {
                    continue;
                }
                // 2,000 datagrams/s: far below what the agent takes, so nothing is dropped.
                LockSupport.parkNanos(next - System.nanoTime());
                next += 500_000;
                ch.send(d.payload().duplicate(), target);
                n++;
            }
        } finally {
            if (tmp != null) {
                Files.deleteIfExists(tmp);
            }
        }
        return n;
    }

    /** as_names after up: every AS of the ASN database, named as mmdblookup names it. */
    private static void upLoadedEveryAsNameOfTheAsnDatabase(Result up, Path asn) throws Exception {
        Map<Long, String> names = AsnDatabase.names(asn);
        assertThat(names.size()).isGreaterThan(50_000);
        assertThat(up.out())
                .contains(String.format(Locale.ROOT, "as_names: %,d AS names in", names.size()));
        assertThat(query("SELECT count(), uniqExact(asn) FROM as_names FINAL"))
                .isEqualTo(names.size() + "\t" + names.size());

        int v6 = 0;
        for (AsnDatabase.AsnNetwork n : AsnDatabase.sampleNetworks(asn, SAMPLE, 11)) {
            String ip = n.cidr().substring(0, n.cidr().indexOf('/'));
            String number = GeoTestData.mmdblookup(asn, ip, "autonomous_system_number");
            String name = GeoTestData.mmdblookup(asn, ip, "autonomous_system_organization");
            assertThat(number).as(n.cidr()).isEqualTo(Long.toString(n.asn()));
            assertThat(raw("SELECT name FROM as_names FINAL WHERE asn = " + number))
                    .as("AS" + number + " (" + n.cidr() + ")")
                    .isEqualTo(name);
            v6 += n.ipv4() ? 0 : 1;
        }
        assertThat(v6).as("IPv6 networks in the sample").isPositive();
    }

    private static String query(String sql) {
        return query(sql, "TSV");
    }

    /** One value as stored, without TSV's escapes. */
    private static String raw(String sql) {
        return query(sql, "TSVRaw");
    }

    private static String query(String sql, String format) {
        Result r = flowhouse("query", "--format", format, sql);
        assertThat(r.code()).as(sql + " (" + r + ")").isZero();
        return r.out().trim();
    }

    private static void awaitRows(String sql, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Result last = null;
        while (System.nanoTime() < deadline) {
            last = flowhouse("query", "--format", "TSV", sql);
            if (last.code() == 0 && last.out().trim().equals(expected)) {
                return;
            }
            Thread.sleep(2_000);
        }
        assertThat(last.out().trim()).as(sql + " (" + last + ")").isEqualTo(expected);
    }

    private record Result(int code, String out, String err) {}

    private static Result flowhouse(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(root, stateDir),
                        env,
                        new ByteArrayInputStream(new byte[0]));
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = main.run(List.of(args), o, e);
        }
        return new Result(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
