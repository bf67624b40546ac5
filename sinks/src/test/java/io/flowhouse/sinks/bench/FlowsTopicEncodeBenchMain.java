// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.kafka.FlowRowIds;
import io.flowhouse.sinks.kafka.FlowhouseFlowEncoder;
import io.flowhouse.sinks.kafka.FlowhouseFlowWriter;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * CPU per flow of the decoded-flows topic's value encoding, one thread: protobuf-java's generated
 * {@code Flow} (builder, message, {@code toByteArray}) against {@link FlowhouseFlowWriter}, on the
 * flows of every test capture, rounds alternating (not a test: run by hand, see
 * sinks/README-kafka.md). The thread's own CPU clock, so other work on the machine does not count.
 *
 * <p>{@code FlowsTopicEncodeBenchMain [FLOWS_PER_ROUND] [ROUNDS]}
 */
public final class FlowsTopicEncodeBenchMain {

    private FlowsTopicEncodeBenchMain() {}

    private static final FlowRowIds IDS =
            new FlowRowIds() {
                @Override
                public long low(FlowRecord r) {
                    return r.sequenceNumber() * 0x9e37_79b9_7f4a_7c15L;
                }

                @Override
                public long high(FlowRecord r) {
                    return r.flowStartMillis();
                }
            };

    public static void main(String[] args) {
        long perRound = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        List<FlowRecord> pool = new ArrayList<>();
        for (CaptureFlows.Capture c : CaptureFlows.ALL) {
            pool.addAll(CaptureFlows.decode(c));
        }
        FlowRecord[] flows = pool.toArray(new FlowRecord[0]);
        FlowhouseFlowWriter writer = new FlowhouseFlowWriter();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "input: %,d flows of the test captures%n", flows.length);
        // Warm-up: both paths compiled before the first measured round.
        run(flows, perRound / 2, writer, true);
        run(flows, perRound / 2, writer, false);
        double[] proto = new double[rounds];
        double[] direct = new double[rounds];
        long sink = 0;
        for (int i = 0; i < rounds; i++) {
            long t0 = mx.getCurrentThreadCpuTime();
            sink += run(flows, perRound, writer, false);
            long t1 = mx.getCurrentThreadCpuTime();
            sink += run(flows, perRound, writer, true);
            long t2 = mx.getCurrentThreadCpuTime();
            proto[i] = (t1 - t0) / (double) perRound;
            direct[i] = (t2 - t1) / (double) perRound;
            System.out.printf(
                    Locale.ROOT,
                    "round %d: protobuf-java %.1f ns/flow, direct writer %.1f ns/flow%n",
                    i + 1,
                    proto[i],
                    direct[i]);
        }
        Arrays.sort(proto);
        Arrays.sort(direct);
        System.out.printf(
                Locale.ROOT,
                "median CPU per flow: protobuf-java %.1f ns (%.2f M flows per CPU-second), direct"
                        + " writer %.1f ns (%.2f M per CPU-second) [%d]%n",
                proto[rounds / 2],
                1e3 / proto[rounds / 2],
                direct[rounds / 2],
                1e3 / direct[rounds / 2],
                sink & 1);
    }

    private static long run(FlowRecord[] flows, long n, FlowhouseFlowWriter writer, boolean fast) {
        long bytes = 0;
        for (long i = 0; i < n; i++) {
            FlowRecord r = flows[(int) (i % flows.length)];
            byte[] v = fast ? writer.encode(r, IDS) : FlowhouseFlowEncoder.encode(r, IDS);
            bytes += v.length;
        }
        return bytes;
    }
}
