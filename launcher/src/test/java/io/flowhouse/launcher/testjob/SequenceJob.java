// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.testjob;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A tiny real streaming job that the launcher's integration tests package into a jar and submit
 * over REST. {@code SequenceJob N} counts to N and finishes; {@code SequenceJob 0} runs until it is
 * cancelled, about a thousand records a second.
 */
public final class SequenceJob {

    private SequenceJob() {}

    public static void main(String[] args) throws Exception {
        long count = args.length > 0 ? Long.parseLong(args[0]) : 10_000L;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        boolean unbounded = count <= 0;
        env.fromSequence(1, unbounded ? Long.MAX_VALUE : count)
                .map(
                        n -> {
                            if (unbounded) {
                                Thread.sleep(1);
                            }
                            return n * 2;
                        })
                .returns(Types.LONG)
                .sinkTo(new DiscardingSink<>());
        env.execute(unbounded ? "flowhouse-it-unbounded" : "flowhouse-it-sequence-" + count);
    }
}
