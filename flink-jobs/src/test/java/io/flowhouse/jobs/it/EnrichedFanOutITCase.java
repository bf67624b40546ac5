// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out with enrichment on: IPFIX flows between real public addresses, sent with no AS
 * numbers (one with the exporter's own), go through the production topology with the open ASN
 * database and {@code enrich.asn-order=exporter-first}. A plain JeroMQ SUB reads nProbe's {@code
 * SRC_AS}/{@code DST_AS} from the TLV flows and nfdump's {@code nfcapd} stores {@code
 * bgpSourceAsNumber}/{@code bgpDestinationAsNumber} of the re-export: both equal what {@code
 * mmdblookup} reads from the same file (the exporter's number where it sent one).
 */
class EnrichedFanOutITCase {

    /** Public resolvers and a documentation address (no AS), as source/destination pairs. */
    static final String[][] PAIRS = {
        {"8.8.8.8", "1.1.1.1"},
        {"9.9.9.9", "8.8.4.4"},
        {"1.0.0.1", "192.0.2.1"},
        {"208.67.222.222", "8.8.8.8"},
    };

    /** The exporter's own AS for the last pair's source: exporter-first keeps it. */
    static final long EXPORTER_AS = 64_500;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void zmqAndIpfixCarryTheFilledAsNumbers(@TempDir Path dir) throws Exception {
        Path geo = GeoTestData.dir();
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        Path nfcapdBin = ServiceRequirement.requireExecutable("nfcapd", "apt-get install nfdump");
        Path nfdumpBin = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        Path asn = geo.resolve("asn.mmdb");
        Map<String, Long> expected = new TreeMap<>();
        for (String[] p : PAIRS) {
            for (String ip : p) {
                String as = GeoTestData.mmdblookup(asn, ip, "autonomous_system_number");
                expected.put(ip, as.isEmpty() ? 0L : Long.parseLong(as));
            }
        }
        assertThat(expected.get("8.8.8.8")).as("the database knows 8.8.8.8").isPositive();

        int ipfixPort = FanOutPeers.freeUdpPort();
        int zmqPort = FanOutPeers.freeTcpPort();
        Config conf =
                JobArgs.resolve(
                        Map.of(),
                        new String[] {
                            "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                            "--kafka.topic.raw", "flows.raw.enrfan",
                            "--kafka.topic.rejected", "flows.rejected.enrfan",
                            "--kafka.topic.templates", "flows.templates.enrfan",
                            "--kafka.group-id", "itcase-enrfan",
                            "--kafka.start", "earliest",
                            "--kafka.stop", "latest",
                            "--job.parallelism", "2",
                            "--job.checkpoint-interval", "1 s",
                            "--ipfix.targets", "127.0.0.1:" + ipfixPort,
                            "--zmq.endpoint", "tcp://127.0.0.1:" + zmqPort,
                            "--zmq.await-subscriber", "30s",
                            "--zmq.linger", "1s",
                            "--zmq.overflow", "block",
                            "--enrich.geoip.asn-database", asn.toString(),
                            "--enrich.asn-order", "exporter-first"
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        assertThat(s.enrich().enabled()).isTrue();
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), List.of(datagram()));

        FanOutPeers.Nfcapd nfcapd = new FanOutPeers.Nfcapd(nfcapdBin, dir, ipfixPort);
        FanOutPeers.TlvSubscriber zmq = new FanOutPeers.TlvSubscriber("tcp://127.0.0.1:" + zmqPort);
        try {
            PipelineSinks sinks =
                    PipelineHarness.withoutClickHouse(s).withEnrichedFlows(new DiscardingSink<>());
            PipelineHarness.environment(s, sinks).execute("enriched fan-out");
            zmq.awaitFlows(PAIRS.length, 30);
            Thread.sleep(500); // let nfcapd drain its socket before it is told to stop
        } finally {
            zmq.stop();
            nfcapd.stop();
        }
        assertThat(zmq.failure()).isNull();
        // nProbe ids: IPV4_SRC_ADDR 8, IPV4_DST_ADDR 12, SRC_AS 16, DST_AS 17.
        Set<String> zmqAs = new TreeSet<>();
        for (Map<Long, Long> f : zmq.flows) {
            zmqAs.add(
                    ip(f.getOrDefault(8L, 0L))
                            + " "
                            + ip(f.getOrDefault(12L, 0L))
                            + " "
                            + f.getOrDefault(16L, 0L)
                            + " "
                            + f.getOrDefault(17L, 0L));
        }
        Set<String> nfcapdAs =
                nfdumpRows(nfcapd.nfdump(nfdumpBin, "-q", "-N", "-o", "fmt:%sa %da %sas %das"));
        Set<String> want = new TreeSet<>();
        for (int i = 0; i < PAIRS.length; i++) {
            long src = i == PAIRS.length - 1 ? EXPORTER_AS : expected.get(PAIRS[i][0]);
            want.add(PAIRS[i][0] + " " + PAIRS[i][1] + " " + src + " " + expected.get(PAIRS[i][1]));
        }
        assertThat(zmqAs).as("ZMQ SRC_AS/DST_AS").isEqualTo(want);
        assertThat(nfcapdAs).as("nfcapd's AS numbers").isEqualTo(want);
    }

    /** The ingress and egress ifIndex of every flow of {@link #datagram()}. */
    static final int IN_IF = 537;

    static final int OUT_IF = 2;

    /**
     * One IPFIX message from 192.0.2.60: a data template with 16/17 and 10/14 and a flow per pair
     * ({@link #PAIRS}), in {@link #IN_IF}, out {@link #OUT_IF}.
     */
    static RawDatagram datagram() throws Exception {
        int[] fields = {
            8, 4, 12, 4, 7, 2, 11, 2, 4, 1, 1, 8, 2, 8, 152, 8, 153, 8, 16, 4, 17, 4, 10, 4, 14, 4
        };
        ByteBuffer t = ByteBuffer.allocate(8 + 2 * fields.length);
        t.putShort((short) 2).putShort((short) t.capacity());
        t.putShort((short) 400).putShort((short) (fields.length / 2));
        for (int f : fields) {
            t.putShort((short) f);
        }
        long now = System.currentTimeMillis();
        int record = 4 + 4 + 2 + 2 + 1 + 8 + 8 + 8 + 8 + 4 + 4 + 4 + 4;
        ByteBuffer d = ByteBuffer.allocate(4 + record * PAIRS.length);
        d.putShort((short) 400).putShort((short) d.capacity());
        for (int i = 0; i < PAIRS.length; i++) {
            d.put(InetAddress.getByName(PAIRS[i][0]).getAddress());
            d.put(InetAddress.getByName(PAIRS[i][1]).getAddress());
            d.putShort((short) (50_000 + i)).putShort((short) 53).put((byte) 17);
            d.putLong(100 + i).putLong(1).putLong(now - 1_000).putLong(now);
            d.putInt(i == PAIRS.length - 1 ? (int) EXPORTER_AS : 0).putInt(0);
            d.putInt(IN_IF).putInt(OUT_IF);
        }
        ByteBuffer m = ByteBuffer.allocate(16 + t.capacity() + d.capacity());
        m.putShort((short) 10).putShort((short) m.capacity()).putInt((int) (now / 1000));
        m.putInt(0).putInt(1).put(t.array()).put(d.array());
        return RawDatagram.of(IpAddress.parse("192.0.2.60"), 42_000, now, "itcase", m.array());
    }

    private static String ip(long v) throws Exception {
        byte[] a = {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        return InetAddress.getByAddress(a).getHostAddress();
    }

    /** "src dst srcAs dstAs" of every row {@code nfdump -o fmt:} printed. */
    private static Set<String> nfdumpRows(String out) {
        Set<String> rows = new TreeSet<>();
        for (String line : out.split("\n")) {
            List<String> f = new ArrayList<>(List.of(line.trim().split("\\s+")));
            if (f.size() == 4) {
                rows.add(String.join(" ", f));
            }
        }
        return rows;
    }
}
