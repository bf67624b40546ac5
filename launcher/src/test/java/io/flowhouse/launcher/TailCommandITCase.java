// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse tail} against a real broker: committed flows, filtered, as a table or JSON;
 * flows of an aborted transaction are never shown (read_committed).
 */
class TailCommandITCase {

    @RegisterExtension static final EmbeddedKafka KAFKA = EmbeddedKafka.create();

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int run(String... args) {
        LaunchContext ctx =
                new LaunchContext(
                        new FlowhouseHome(dir, dir.resolve(".flowhouse")),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        return FlowhouseMain.commandLine(ctx).execute(args);
    }

    private static byte[] flow(String src, int dstPort, long bytes) {
        return Flow.newBuilder()
                .setRowId(bytes)
                .setExporterAddress(bytes16("192.0.2.1"))
                .setExporterPort(2055)
                .setVersion(10)
                .setIpVersion(4)
                .setSrcAddr(bytes16(src))
                .setDstAddr(bytes16("10.0.0.9"))
                .setSrcPort(51_000)
                .setDstPort(dstPort)
                .setProto(6)
                .setPackets(3)
                .setBytes(bytes)
                .setTimeReceivedMs(1_705_320_000_000L)
                .build()
                .toByteArray();
    }

    private static ByteString bytes16(String a) {
        return ByteString.copyFrom(IpAddress.parse(a).toBytes16());
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void printsCommittedFlowsThatMatchTheFilter() throws Exception {
        String topic = "flows.decoded.tail";
        KAFKA.createTopic(topic, 1);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tail-itcase");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.1", 443, 1000)));
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.2", 443, 2000)));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.1", 443, 1111)));
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.2", 443, 2222)));
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.1", 22, 3333)));
            producer.send(new ProducerRecord<>(topic, flow("10.0.0.1", 443, 4444)));
            producer.commitTransaction();
        }
        String[] common = {
            "tail",
            "--bootstrap-servers",
            KAFKA.bootstrapServers(),
            "--topic",
            topic,
            "--from-beginning"
        };

        assertThat(
                        run(
                                concat(
                                        common,
                                        "--filter",
                                        "src=10.0.0.1 and port=443",
                                        "--max",
                                        "2",
                                        "--format",
                                        "json")))
                .isZero();
        String json = out.toString(StandardCharsets.UTF_8);
        assertThat(json.lines())
                .hasSize(2)
                .allSatisfy(l -> assertThat(l).contains("\"src_addr\":\"10.0.0.1\""));
        assertThat(json).contains("\"bytes\":1111").contains("\"bytes\":4444");
        assertThat(json).doesNotContain("\"bytes\":1000").doesNotContain("\"bytes\":3333");

        out.reset();
        assertThat(run(concat(common, "--filter", "dst-port=22", "--max", "1"))).isZero();
        String table = out.toString(StandardCharsets.UTF_8);
        assertThat(table.lines()).hasSize(2);
        assertThat(table.lines().findFirst().orElseThrow()).startsWith("time_received");
        assertThat(table).contains("192.0.2.1:2055").contains("10.0.0.9:22").contains("3333");

        assertThat(run(concat(common, "--filter", "colour=red"))).isEqualTo(ExitCode.USAGE);
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
