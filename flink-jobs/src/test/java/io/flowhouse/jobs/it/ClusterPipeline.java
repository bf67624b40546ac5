// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseClusterExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.clickhouse.LocalClickHouseCluster;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;

/**
 * The production topology against a {@link LocalClickHouseCluster}: the job's settings naming every
 * server, the captures sent from an exporter each, and a run during which one server is killed with
 * {@code kill -9} and started again.
 */
final class ClusterPipeline {

    private ClusterPipeline() {}

    /** The exporter capture {@code i} of {@link CaptureProducer#CAPTURES} is sent from. */
    static IpAddress exporter(int i) {
        return IpAddress.parse("192.0.2." + (10 + i));
    }

    /** The job's settings: every server's URL, the cluster, small batches, a bounded run. */
    static PipelineSettings settings(
            EmbeddedKafka kafka, LocalClickHouseCluster cluster, String suffix) {
        return PipelineHarness.settings(
                kafka.bootstrapServers(),
                cluster.replica(0),
                suffix,
                "--kafka.stop",
                "latest",
                "--clickhouse.url",
                cluster.httpUrls(),
                "--clickhouse.cluster",
                LocalClickHouseCluster.CLUSTER,
                "--clickhouse.batch-size",
                "500");
    }

    /** Every capture from its {@link #exporter} into the raw topic; the datagrams sent. */
    static List<RawDatagram> produceCaptures(EmbeddedKafka kafka, PipelineSettings s)
            throws Exception {
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(), exporter(i), 40_000 + i));
        }
        kafka.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(kafka.bootstrapServers(), s.rawTopic(), all);
        return all;
    }

    /**
     * Runs the job to the end of the topic; once {@code victim} holds rows in {@code table}
     * (qualified), kills it with {@code kill -9} and starts it again 5 s later.
     */
    static void runKilling(
            PipelineSettings s,
            LocalClickHouseCluster cluster,
            LocalClickHouse victim,
            String table,
            Duration jobTimeout)
            throws Exception {
        JobClient job =
                PipelineHarness.environment(s, cluster.replica(0))
                        .executeAsync("kill " + victim.httpUrl());
        // The job first migrates the schema ON CLUSTER: minutes on a loaded machine.
        ClickHouseClusterExtension.awaitAnswer(
                victim, Duration.ofMinutes(5), "SELECT count() > 0 FROM " + table, "1");
        victim.kill();
        Thread.sleep(5_000);
        victim.start();
        job.getJobExecutionResult().get(jobTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
