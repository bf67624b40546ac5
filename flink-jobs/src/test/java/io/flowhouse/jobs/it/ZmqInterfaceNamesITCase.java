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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interface names to ntopng through the production topology with enrichment on: softflowd's NetFlow
 * v9 capture names its interface in its options data; the job learns it, and a plain JeroMQ SUB
 * subscribed as ntopng is (topics {@code flow} and {@code snmp-ifaces}) reads an {@code
 * snmp-ifaces} message for the capture's exporter whose interfaces are exactly the ones of the
 * flows, named as tshark reads the options data.
 */
class ZmqInterfaceNamesITCase {

    private static final String CAPTURE = "netflow-v9-softflowd.pcap";
    private static final IpAddress EXPORTER = IpAddress.parse("192.0.2.70");
    private static final ObjectMapper JSON = new ObjectMapper();

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
    void ntopngGetsTheNamesOfTheOptionsData() throws Exception {
        ServiceRequirement.requireExecutable("tshark", "apt-get install tshark");
        String tsharkName = TsharkIfName.of(CAPTURE);
        int zmqPort = FanOutPeers.freeTcpPort();
        Config conf =
                JobArgs.resolve(
                        Map.of(),
                        new String[] {
                            "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                            "--kafka.topic.raw", "flows.raw.zmqif",
                            "--kafka.topic.rejected", "flows.rejected.zmqif",
                            "--kafka.topic.templates", "flows.templates.zmqif",
                            "--kafka.group-id", "itcase-zmqif",
                            "--kafka.start", "earliest",
                            "--kafka.stop", "latest",
                            "--job.parallelism", "2",
                            "--job.checkpoint-interval", "1 s",
                            "--zmq.endpoint", "tcp://127.0.0.1:" + zmqPort,
                            "--zmq.await-subscriber", "30s",
                            "--zmq.overflow", "block",
                            "--enrich.geoip.asn-database",
                                    GeoTestData.dir().resolve("asn.mmdb").toString()
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        assertThat(s.enrich().enabled()).isTrue();
        KAFKA.createTopic(s.rawTopic(), 2);
        List<RawDatagram> capture = CaptureProducer.datagrams(CAPTURE, EXPORTER, 40_070);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), capture);

        FanOutPeers.TlvSubscriber ntopng =
                new FanOutPeers.TlvSubscriber("tcp://127.0.0.1:" + zmqPort);
        try {
            PipelineSinks sinks =
                    PipelineHarness.withoutClickHouse(s).withEnrichedFlows(new DiscardingSink<>());
            PipelineHarness.environment(s, sinks).execute("zmq interface names");
            ntopng.awaitFlows(2_991, 60);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ntopng.snmpIfaces.isEmpty() && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
        } finally {
            ntopng.stop();
        }
        assertThat(ntopng.failure()).isNull();
        assertThat(ntopng.flows).hasSize(2_991); // the capture's flows (testdata README)

        // The interfaces the flows use (nProbe INPUT_SNMP 10, OUTPUT_SNMP 14).
        TreeSet<Long> used = new TreeSet<>();
        for (Map<Long, Long> f : ntopng.flows) {
            used.add(f.getOrDefault(10L, 0L));
            used.add(f.getOrDefault(14L, 0L));
        }
        assertThat(ntopng.snmpIfaces).isNotEmpty();
        for (String message : ntopng.snmpIfaces) {
            JsonNode j = JSON.readTree(message);
            // One exporter per message, keyed as ntopng keys its Redis entry, every interface of
            // the flows named as tshark reads the capture's options data.
            assertThat(j.size()).isEqualTo(1);
            JsonNode ifaces = j.get(EXPORTER.toString());
            assertThat(ifaces).as(message).isNotNull();
            Map<Long, String> names = new TreeMap<>();
            ifaces.fields()
                    .forEachRemaining(
                            e ->
                                    names.put(
                                            Long.parseLong(e.getKey()),
                                            e.getValue().get("name").asText()));
            Map<Long, String> want = new TreeMap<>();
            for (long ifIndex : used) {
                want.put(ifIndex, tsharkName);
            }
            assertThat(names).isEqualTo(want);
        }
    }
}
