// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowTimestamps;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * What the late pieces cost the rollups: flows with random keys and times up to an hour before
 * their receive time (as decode leaves a mutated flow: clamped and cut at an hour) through the
 * rollups (1 min from the flows, 1 h derived; rows discarded, late pieces counted only), with the
 * windows dropping the late pieces or the split; this JVM's CPU per run (a local environment, one
 * subtask), the pair run twice (the second warm). Arguments: flows (default 20,000).
 */
public final class SplitLateCost {

    private SplitLateCost() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        List<FlowRecord> flows = flows(n);
        for (int round = 1; round <= 2; round++) {
            for (boolean split : new boolean[] {false, true}) {
                long c0 = cpu();
                long t0 = System.nanoTime();
                run(flows, split);
                System.out.printf(
                        Locale.ROOT,
                        "round %d, %s: %,d flows, cpu %.1f s, wall %.1f s, load %.1f%n",
                        round,
                        split ? "split drops late" : "windows drop late",
                        n,
                        (cpu() - c0) / 1e9,
                        (System.nanoTime() - t0) / 1e9,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
        }
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void run(List<FlowRecord> flows, boolean split) throws Exception {
        RollupSettings s =
                new RollupSettings(
                        true,
                        List.of(Duration.ofMinutes(1), Duration.ofHours(1)),
                        20,
                        Duration.ofSeconds(10),
                        Duration.ofMinutes(10),
                        Duration.ZERO,
                        Map.of(),
                        PieceCombiner.DEFAULT_MAX_BUCKETS,
                        RollupConfigKeys.TOP_CAPACITY.defaultValue(),
                        RollupConfigKeys.TOP_SHARDS.defaultValue(),
                        BucketBudget.DEFAULT_MAX_BUCKETS);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.getConfig().setAutoWatermarkInterval(0);
        DataStream<FlowRecord> in =
                env.fromData(flows, TypeInformation.of(FlowRecord.class))
                        .assignTimestampsAndWatermarks(
                                FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
        for (RollupTopology.Streams st : RollupTopology.streams(in, s, split)) {
            st.rows().sinkTo(new DiscardingSink<>());
        }
        env.execute(split ? "split drops late" : "windows drop late");
    }

    private static List<FlowRecord> flows(int n) {
        Random rnd = new Random(16);
        List<FlowRecord> out = new ArrayList<>();
        long received = 1_705_320_000_000L;
        for (int i = 0; i < n; i++) {
            received += rnd.nextInt(100);
            long end = received - rnd.nextInt(20 * 60_000);
            long start = end - rnd.nextInt(60 * 60_000);
            out.add(
                    FlowRecord.builder()
                            .version(10)
                            .exporterAddress(IpAddress.parse("127.0.1." + (1 + rnd.nextInt(4))))
                            .flowStartMillis(start)
                            .flowEndMillis(end)
                            .timeReceivedMillis(received)
                            .srcAddr(
                                    IpAddress.parse(
                                            "10." + rnd.nextInt(256) + ".0." + rnd.nextInt(256)))
                            .dstAddr(
                                    IpAddress.parse(
                                            "10.1." + rnd.nextInt(256) + "." + rnd.nextInt(256)))
                            .protocol(rnd.nextInt(256))
                            .srcPort(rnd.nextInt(65_536))
                            .dstPort(rnd.nextInt(65_536))
                            .srcAs(rnd.nextInt())
                            .dstAs(rnd.nextInt())
                            .inputInterface(rnd.nextInt(65_536))
                            .outputInterface(rnd.nextInt(65_536))
                            .bytes(rnd.nextInt(1 << 30))
                            .packets(1 + rnd.nextInt(1 << 20))
                            .build());
        }
        return out;
    }
}
