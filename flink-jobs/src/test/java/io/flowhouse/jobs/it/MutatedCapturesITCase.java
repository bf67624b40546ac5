// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.CaptureMutator;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded mutations of the real captures ({@link CaptureMutator}) through the production graph on a
 * MiniCluster with no restarts allowed, beside the unchanged NetFlow v5 capture from its own
 * exporter: the job ends normally (any exception an operator or sink throws fails it at once, with
 * its cause), and the good exporter's flows, packets and bytes are exact in {@code flows FINAL}.
 * {@code -Dflowhouse.mutations=N} sets the count.
 */
class MutatedCapturesITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final long MUTATIONS =
            Long.parseLong(System.getProperty("flowhouse.mutations", "30000"));

    /** Datagrams a second of receive time, as the fault suite sends them. */
    private static final int RATE = 5_000;

    @TempDir Path checkpoints;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void mutatedCapturesNeverFailTheJobAndTheGoodExporterIsExact() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        ch,
                        "mutated",
                        "--kafka.stop",
                        "latest",
                        "--decode.template-hold-time",
                        "2 s",
                        "--decode.state.max-bytes",
                        "4MiB");
        long base = System.currentTimeMillis() - MUTATIONS * 1_000 / RATE - 60_000;
        List<RawDatagram> good =
                CaptureProducer.datagrams(
                        "netflow-v5-softflowd.pcap", IpAddress.parse("192.0.2.99"), 2055);
        CaptureMutator mutator = new CaptureMutator(0x0ddba11L);
        List<RawDatagram> all = new ArrayList<>();
        IpAddress attacker = IpAddress.parse("192.0.2.66");
        long goodEvery = Math.max(1, MUTATIONS / good.size());
        int g = 0;
        for (long i = 0; i < MUTATIONS; i++) {
            long received = base + i * 1_000 / RATE;
            all.add(
                    RawDatagram.of(
                            attacker, 30_000 + (int) (i % 16), received, "mut", mutator.next()));
            if (i % goodEvery == 0 && g < good.size()) {
                all.add(
                        RawDatagram.of(
                                good.get(g++).exporter(),
                                received,
                                "good",
                                good.get(g - 1).payload()));
            }
        }
        while (g < good.size()) {
            all.add(
                    RawDatagram.of(
                            good.get(g).exporter(),
                            base + MUTATIONS * 1_000 / RATE,
                            "good",
                            good.get(g++).payload()));
        }
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        Configuration c = new Configuration();
        // No restart: the first exception fails the job, with its cause, here.
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // As every deployment has (README): the in-memory default refuses state over 5 MiB.
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), PipelineHarness.sinks(s, ch), s);
        env.execute("mutated captures");

        List<String> row =
                ch.queryRows(
                                "SELECT count(), sum(packets), sum(bytes) FROM"
                                        + " flowhouse_mutated.flows FINAL WHERE exporter_port ="
                                        + " 2055")
                        .get(0);
        assertThat(Long.parseLong(row.get(1))).as("packets").isEqualTo(CaptureProducer.V5_PACKETS);
        assertThat(Long.parseLong(row.get(2))).as("bytes").isEqualTo(CaptureProducer.V5_BYTES);
    }
}
