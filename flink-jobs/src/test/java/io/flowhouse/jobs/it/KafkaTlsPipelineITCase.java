// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.services.kafka.TlsKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job against a broker that only admits SASL_SSL clients (TLS + SASL/PLAIN): the Kafka client
 * settings come from {@code kafka.properties.*} in the job's YAML file, the password and trust
 * store password from a secret file through Kafka's {@code FileConfigProvider}, never from argv or
 * the YAML. Topic creation (admin), the raw and templates sources and the rejected and templates
 * sinks all talk SASL_SSL, and one capture decodes to its ground truth.
 */
class KafkaTlsPipelineITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void pipelineReadsAndWritesOverSaslSslWithSecretsFromAFile() throws Exception {
        String password = "pw-" + UUID.randomUUID();
        try (TlsKafka kafka = TlsKafka.start(dir.resolve("tls"), "flowhouse-job", password)) {
            Path secret = dir.resolve("kafka.secret");
            Files.writeString(
                    secret,
                    "password="
                            + password
                            + "\ntruststore.password="
                            + kafka.truststorePassword()
                            + "\n",
                    StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
            String ref = "${file:" + secret + ":";
            Path yaml = dir.resolve("job.yaml");
            Files.writeString(
                    yaml,
                    String.join(
                            "\n",
                            "kafka:",
                            "  bootstrap-servers: '" + kafka.saslSslBootstrapServers() + "'",
                            "  topic:",
                            "    raw: flows.raw.tls",
                            "    rejected: flows.rejected.tls",
                            "    templates: flows.templates.tls",
                            "  group-id: itcase-tls",
                            "  start: earliest",
                            "  stop: latest",
                            "  properties:",
                            "    config.providers: file",
                            "    config.providers.file.class:"
                                    + " org.apache.kafka.common.config.provider.FileConfigProvider",
                            "    security.protocol: SASL_SSL",
                            "    sasl.mechanism: PLAIN",
                            "    sasl.jaas.config: 'org.apache.kafka.common.security.plain"
                                    + ".PlainLoginModule required username=\"flowhouse-job\""
                                    + " password=\""
                                    + ref
                                    + "password}\";'",
                            "    ssl.truststore.location: '" + kafka.truststore() + "'",
                            "    ssl.truststore.type: PKCS12",
                            "    ssl.truststore.password: '" + ref + "truststore.password}'",
                            "job:",
                            "  parallelism: 2",
                            "  checkpoint-interval: 1 s",
                            ""),
                    StandardCharsets.UTF_8);
            assertThat(Files.readString(yaml)).doesNotContain(password);
            String[] args = {"--config", yaml.toString()};
            PipelineSettings s = PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
            assertThat(s.kafkaProperties()).containsEntry("security.protocol", "SASL_SSL");
            assertThat(List.of(args)).noneMatch(a -> a.contains(password));

            // The test itself produces over the PLAINTEXT listener.
            kafka.broker().createTopic(s.rawTopic(), 2);
            CaptureProducer.produce(
                    kafka.plaintextBootstrapServers(),
                    s.rawTopic(),
                    CaptureProducer.datagrams(
                            "ipfix-pmacct.pcap", IpAddress.parse("192.0.2.60"), 42_000));

            KafkaTopics.ensure(s); // admin over SASL_SSL: creates rejected + templates
            assertThat(kafka.broker().topics()).contains(s.rejectedTopic(), s.templatesTopic());

            StreamExecutionEnvironment env = PipelineHarness.environment(s);
            DataStream<FlowRecord> flows =
                    FlowPipelineJob.build(
                            env,
                            PipelineConnectors.sources(s),
                            PipelineHarness.withoutClickHouse(s),
                            s);
            // Bounded job; the limit is above the capture's 2,995 flows, so it only bounds the run.
            List<FlowRecord> out = flows.executeAndCollect("kafka tls", 10_000);
            long records = out.size();
            long packets = 0;
            long bytes = 0;
            for (FlowRecord f : out) {
                packets += f.packets() + f.reversePackets();
                bytes += f.bytes() + f.reverseBytes();
            }
            assertThat(records).isEqualTo(2995);
            assertThat(packets).isEqualTo(CaptureProducer.V9_IPFIX_PACKETS);
            assertThat(bytes).isEqualTo(CaptureProducer.V9_IPFIX_BYTES);

            // The templates sink wrote over SASL_SSL.
            try (var admin = kafka.broker().createAdmin()) {
                var tp = new org.apache.kafka.common.TopicPartition(s.templatesTopic(), 0);
                long end =
                        admin.listOffsets(
                                        Map.of(
                                                tp,
                                                org.apache.kafka.clients.admin.OffsetSpec.latest()))
                                .partitionResult(tp)
                                .get(60, TimeUnit.SECONDS)
                                .offset();
                assertThat(end).as("templates archived over SASL_SSL").isPositive();
            }
        }
    }
}
