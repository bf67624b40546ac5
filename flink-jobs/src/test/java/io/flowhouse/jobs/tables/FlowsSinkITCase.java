// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink in a real Flink job on a MiniCluster (1 TaskManager, 2 slots) writing into a real
 * ClickHouse 18.16: a bounded stream lands with exact sums, and a task failure after a completed
 * checkpoint (the job restarts from it and replays) still gives exact totals with the documented
 * query.
 */
class FlowsSinkITCase {

    @RegisterExtension
    @Order(1)
    static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final int N = 100_000;
    private static final AtomicInteger FAILURES = new AtomicInteger();

    private static String exact(int n) {
        long bytes = 0;
        long packets = 0;
        for (int i = 0; i < n; i++) {
            FlowRecord f = ClickHouseTestSupport.flow(i);
            bytes += f.bytes();
            packets += f.packets();
        }
        return n + "\t" + bytes + "\t" + packets;
    }

    private static StreamExecutionEnvironment env() {
        return env(200);
    }

    private static StreamExecutionEnvironment env(long checkpointMillis) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    @Test
    void boundedStreamLandsWithExactSums() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("sink_bounded");
        StreamExecutionEnvironment env = env();
        env.fromSequence(0, N - 1)
                .map(i -> ClickHouseTestSupport.flow(i))
                .returns(FlowRecord.class)
                .sinkTo(
                        JobTables.of(
                                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db)
                                                .batchMaxRows(10_000)
                                                .build())
                                .flows())
                .name("clickhouse-flows")
                .uid("clickhouse-flows");
        env.execute("clickhouse sink bounded");
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT count(), sum(bytes), sum(packets) FROM "
                                                + db
                                                + ".flows"))
                .containsExactly(exact(N));
    }

    @Test
    void aFailureAfterACheckpointReplaysWithoutDoubleCounting() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("sink_failover");
        FAILURES.set(0);
        // Create the schema first and stop background merges, so the replayed copies stay visible
        // to the plain count and FINAL has real work to do.
        try (ClickHouseConnection conn =
                new ClickHouseConnection(
                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build())) {
            ClickHouseTestSupport.SCHEMA.migrator(conn, db).migrate();
        }
        CLICKHOUSE.service().execute("SYSTEM STOP MERGES " + db + ".flows");
        StreamExecutionEnvironment env = env(1_000);
        env.fromSequence(0, N - 1)
                .map(new FailOnceAfterCheckpoint(10_000))
                .sinkTo(
                        JobTables.of(
                                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db)
                                                .batchMaxRows(2_000)
                                                .flushInterval(Duration.ofMillis(50))
                                                .build())
                                .flows())
                .uid("clickhouse-flows");
        env.execute("clickhouse sink failover");
        assertThat(FAILURES.get()).as("the injected failure happened").isEqualTo(1);
        String exact = exact(N);
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT count(), sum(bytes), sum(packets) FROM "
                                                + db
                                                + ".flows FINAL"))
                .containsExactly(exact);
        long plain =
                Long.parseLong(
                        CLICKHOUSE.service().queryScalar("SELECT count() FROM " + db + ".flows"));
        assertThat(plain).as("nothing lost; replayed copies at most").isGreaterThanOrEqualTo(N);
        System.out.printf(
                "failover: %d rows sent, %d stored before merging (%d replayed copies), FINAL exact%n",
                N, plain, plain - N);
        CLICKHOUSE.service().execute("SYSTEM START MERGES " + db + ".flows");
        assertThat(
                        CLICKHOUSE
                                .service()
                                .queryAfterMerge(
                                        db + ".flows",
                                        "SELECT count(), sum(bytes), sum(packets) FROM "
                                                + db
                                                + ".flows",
                                        List.of(exact)))
                .containsExactly(exact);
    }

    /**
     * Maps sequence numbers to flows slowly enough for checkpoints to complete, and throws once, in
     * the first attempt of subtask 0, after a checkpoint completed and {@code after} records.
     */
    static final class FailOnceAfterCheckpoint extends RichMapFunction<Long, FlowRecord>
            implements CheckpointListener {

        private final int after;
        private transient int seen;
        private transient volatile int seenAtCheckpoint;

        FailOnceAfterCheckpoint(int after) {
            this.after = after;
        }

        @Override
        public void open(OpenContext context) {
            seen = 0;
            seenAtCheckpoint = -1;
        }

        @Override
        public FlowRecord map(Long i) throws Exception {
            if (++seen % 20 == 0) {
                Thread.sleep(1);
            }
            boolean first = getRuntimeContext().getTaskInfo().getAttemptNumber() == 0;
            boolean subtask0 = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0;
            int mark = seenAtCheckpoint;
            if (first && subtask0 && mark >= 0 && seen >= mark + after) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("injected failure after a checkpoint");
            }
            return ClickHouseTestSupport.flow(i);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (seenAtCheckpoint < 0) {
                seenAtCheckpoint = seen;
            }
        }
    }
}
