// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.junit.jupiter.api.Test;

/**
 * {@code flowhouse.kafka.properties.<key>} reaches every Kafka builder of the job: the raw and
 * templates sources, the rejected and templates sinks, the packets source.
 */
class KafkaClientPropertiesTest {

    private static final String JAAS =
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
                    + " password=\"${file:/etc/flowhouse/kafka.secret:password}\";";

    private static PipelineSettings settings(String... extra) {
        String[] base = {
            "--kafka.bootstrap-servers", "127.0.0.1:9093",
            "--kafka.properties.security.protocol", "SASL_SSL",
            "--kafka.properties.sasl.mechanism", "PLAIN",
            "--flowhouse.kafka.properties.sasl.jaas.config", JAAS,
            "--kafka.properties.config.providers", "file",
            "--kafka.properties.max.partition.fetch.bytes", "1048576"
        };
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    private static Properties field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return (Properties) f.get(o);
    }

    @Test
    void propertiesReachEverySourceAndSink() throws Exception {
        PipelineSettings s = settings();
        assertThat(s.kafkaProperties())
                .containsOnlyKeys(
                        "security.protocol",
                        "sasl.mechanism",
                        "sasl.jaas.config",
                        "config.providers",
                        "max.partition.fetch.bytes");
        for (Properties p :
                new Properties[] {
                    field(PipelineConnectors.rawSource(s), "props"),
                    field(PipelineConnectors.templatesSource(s), "props"),
                    field(
                            PacketFlowTopology.kafkaSource(
                                    s.bootstrapServers(),
                                    "packets.raw",
                                    s.groupId(),
                                    OffsetsInitializer.earliest(),
                                    null,
                                    s.kafkaClientProperties()),
                            "props"),
                    field(PipelineConnectors.rejectedSink(s), "kafkaProducerConfig"),
                    field(PipelineConnectors.templatesSink(s), "kafkaProducerConfig")
                }) {
            assertThat(p.getProperty("security.protocol")).isEqualTo("SASL_SSL");
            assertThat(p.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
            // The reference is passed as is: the Kafka client resolves it where it runs.
            assertThat(p.getProperty("sasl.jaas.config")).isEqualTo(JAAS);
            assertThat(p.getProperty("config.providers")).isEqualTo("file");
            assertThat(p.getProperty("bootstrap.servers")).isEqualTo("127.0.0.1:9093");
        }
        // The operator's value wins over the job's default.
        assertThat(field(PipelineConnectors.rawSource(s), "props"))
                .containsEntry("max.partition.fetch.bytes", "1048576");
    }

    @Test
    void noPropertiesLeavesTheBuildersAlone() throws Exception {
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), new String[] {"--kafka.start", "earliest"}),
                        Map.of());
        assertThat(s.kafkaProperties()).isEmpty();
        assertThat(field(PipelineConnectors.rawSource(s), "props"))
                .doesNotContainKey("security.protocol");
    }

    @Test
    void keysTheJobOwnsAreRefused() {
        assertThatThrownBy(() -> settings("--kafka.properties.bootstrap.servers", "x:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flowhouse.kafka.properties.bootstrap.servers");
        assertThatThrownBy(() -> settings("--kafka.properties.group.id", "g"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void settingsNeverPrintPropertyValues() {
        assertThat(settings().toString())
                .contains("sasl.jaas.config")
                .doesNotContain("PlainLoginModule");
    }
}
