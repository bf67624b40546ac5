// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out switched on by configuration, as {@code ./flowhouse up --ipfix-to --zmq} does: one
 * test capture goes through the production topology on a MiniCluster with {@code
 * flowhouse.ipfix.targets} pointing at a real nfdump {@code nfcapd} and {@code
 * flowhouse.zmq.endpoint} bound on loopback with a plain JeroMQ SUB reading it. nfcapd's totals
 * ({@code nfdump -I}) and the flows counted in the ZMQ TLV messages equal the ground truth.
 */
class FanOutITCase {

    private static final String CAPTURE = "ipfix-pmacct.pcap";
    private static final long RECORDS = 2995;

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
    void ipfixAndZmqReceiveEveryFlowOfTheCapture(@TempDir Path dir) throws Exception {
        Path nfcapdBin = ServiceRequirement.requireExecutable("nfcapd", "apt-get install nfdump");
        Path nfdumpBin = ServiceRequirement.requireExecutable("nfdump", "apt-get install nfdump");
        int ipfixPort = FanOutPeers.freeUdpPort();
        int zmqPort = FanOutPeers.freeTcpPort();
        Config conf =
                JobArgs.resolve(
                        Map.of(),
                        new String[] {
                            "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                            "--kafka.topic.raw", "flows.raw.fanout",
                            "--kafka.topic.rejected", "flows.rejected.fanout",
                            "--kafka.topic.templates", "flows.templates.fanout",
                            "--kafka.group-id", "itcase-fanout",
                            "--kafka.start", "earliest",
                            "--kafka.stop", "latest",
                            "--job.parallelism", "2",
                            "--job.checkpoint-interval", "1 s",
                            // Short keys as the launcher passes them, and one full key.
                            "--ipfix.targets", "127.0.0.1:" + ipfixPort,
                            "--ipfix.max-message-bytes", "8192",
                            "--zmq.endpoint", "tcp://127.0.0.1:" + zmqPort,
                            "--flowhouse.zmq.await-subscriber", "30s",
                            "--zmq.linger", "5s",
                            "--zmq.overflow", "block"
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        List<RawDatagram> datagrams =
                CaptureProducer.datagrams(CAPTURE, IpAddress.parse("192.0.2.50"), 41_000);
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), datagrams);

        FanOutPeers.Nfcapd nfcapd =
                new FanOutPeers.Nfcapd(nfcapdBin, dir, ipfixPort, "-B", "16777216");
        FanOutPeers.TlvSubscriber zmq = new FanOutPeers.TlvSubscriber("tcp://127.0.0.1:" + zmqPort);
        try {
            PipelineSinks sinks = PipelineHarness.withoutClickHouse(s);
            assertThat(sinks.fanOutCount()).isEqualTo(2);
            PipelineHarness.environment(s, sinks).execute("fan-out");

            // The job has ended (bounded run); the SUB may still be reading the last messages.
            zmq.awaitFlows(RECORDS, 30);
            Thread.sleep(500); // let nfcapd drain its socket before it is told to stop
        } finally {
            zmq.stop();
            nfcapd.stop();
        }
        assertThat(zmq.failure()).isNull();
        // nProbe ids: IN_PKTS 2, OUT_PKTS 24, IN_BYTES 1, OUT_BYTES 23.
        assertThat(zmq.flows).as("ZMQ flows").hasSize((int) RECORDS);
        assertThat(zmq.sum(2, 24)).as("ZMQ packets").isEqualTo(CaptureProducer.V9_IPFIX_PACKETS);
        assertThat(zmq.sum(1, 23)).as("ZMQ bytes").isEqualTo(CaptureProducer.V9_IPFIX_BYTES);

        String info = nfcapd.nfdump(nfdumpBin, "-I");
        assertThat(field(info, "Flows")).as("nfcapd flows").isEqualTo(RECORDS);
        assertThat(field(info, "Packets"))
                .as("nfcapd packets")
                .isEqualTo(CaptureProducer.V9_IPFIX_PACKETS);
        assertThat(field(info, "Bytes"))
                .as("nfcapd bytes")
                .isEqualTo(CaptureProducer.V9_IPFIX_BYTES);
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + ": *([0-9]+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError("no " + name + " in nfdump -I output:\n" + info);
        }
        return Long.parseLong(m.group(1));
    }
}
