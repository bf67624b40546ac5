// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.ConfigException;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.sinks.kafka.FlowsTopicDelivery;
import io.flowhouse.sinks.kafka.FlowsTopicFormat;
import io.flowhouse.sinks.kafka.FlowsTopicOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlowsTopicConfigTest {

    private static PipelineSettings settings(Map<String, String> env, String... args) {
        return PipelineSettings.from(JobArgs.resolve(env, args), Map.of());
    }

    @Test
    void offByDefault() {
        PipelineSettings s = settings(Map.of());
        assertThat(s.flowsTopic()).isNull();
        assertThat(PipelineConnectors.flowsTopicSink(s)).isNull();
        assertThat(PipelineConnectors.sinks(s).flowsTopic()).isNull();
    }

    @Test
    void enabledTakesTheDefaultsExactlyOnceOnFlowsDecoded() {
        PipelineSettings s = settings(Map.of(), "--flows-topic.enabled", "true");
        FlowsTopicOptions o = s.flowsTopic();
        assertThat(o).isEqualTo(FlowsTopicOptions.defaults("flows.decoded"));
        assertThat(o.delivery()).isEqualTo(FlowsTopicDelivery.EXACTLY_ONCE);
        assertThat(PipelineConnectors.sinks(s).flowsTopic()).isNotNull();
    }

    @Test
    void everyKeyFromFlagsAndTheEnvironment() {
        PipelineSettings s =
                settings(
                        Map.of("FLOWHOUSE_FLOWS_TOPIC_ENABLED", "true"),
                        "--set",
                        "flows-topic.topic=decoded.v1",
                        "--flows-topic.format",
                        "goflow2",
                        "--flows-topic.partitions",
                        "12",
                        "--flows-topic.compression",
                        "zstd",
                        "--flows-topic.batch-size",
                        "256KiB",
                        "--flows-topic.linger",
                        "5ms",
                        "--flows-topic.delivery-guarantee",
                        "at-least-once",
                        "--flows-topic.transactional-id-prefix",
                        "site-a",
                        "--flows-topic.transaction-timeout",
                        "2m");
        assertThat(s.flowsTopic())
                .isEqualTo(
                        new FlowsTopicOptions(
                                "decoded.v1",
                                FlowsTopicFormat.GOFLOW2,
                                12,
                                "zstd",
                                256 * 1024,
                                Duration.ofMillis(5),
                                FlowsTopicDelivery.AT_LEAST_ONCE,
                                "site-a",
                                Duration.ofMinutes(2)));
    }

    @Test
    void topicOnlyHasNoClickHouseSinkAndNeedsAnOutput() {
        assertThat(settings(Map.of()).clickhouse().enabled()).isTrue();
        PipelineSettings s =
                settings(
                        Map.of(), "--flows-topic.enabled", "true", "--clickhouse.enabled", "false");
        assertThat(s.clickhouse().enabled()).isFalse();
        assertThat(PipelineConnectors.sinks(s).flows()).isNull();
        assertThat(PipelineConnectors.sinks(s).stats()).isNull();
        assertThat(PipelineConnectors.sinks(s).packetFlows()).isNull();
        assertThat(PipelineConnectors.sinks(s).rollups()).isNull();
        assertThat(PipelineConnectors.sinks(s).interfaceCounters()).isNull();
        assertThat(PipelineConnectors.sinks(s).enrichedFlows()).isNull();
        assertThat(PipelineConnectors.sinks(s).flowsTopic()).isNotNull();
        assertThatThrownBy(() -> settings(Map.of(), "--clickhouse.enabled", "false"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clickhouse.enabled");
    }

    @Test
    void badValuesNameTheirKey() {
        assertThatThrownBy(
                        () ->
                                settings(
                                        Map.of(),
                                        "--flows-topic.enabled",
                                        "true",
                                        "--flows-topic.delivery-guarantee",
                                        "twice"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("flows-topic.delivery-guarantee");
        assertThatThrownBy(() -> settings(Map.of(), "--flows-topic.format", "json"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("flows-topic.format");
    }
}
