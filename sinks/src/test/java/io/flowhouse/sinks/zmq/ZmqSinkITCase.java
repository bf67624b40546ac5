// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ZmqSink} in a real Flink MiniCluster job, read back by the independent decoder. */
class ZmqSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void flinkJobPublishesEveryFlow() throws Exception {
        List<FlowRecord> flows = ZmqFlows.synthetic(5_000, 99);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        ZmqSinkOptions options =
                ZmqSinkOptions.builder("tcp://127.0.0.1:" + port)
                        .overflow(ZmqSinkOptions.Overflow.BLOCK)
                        .awaitSubscriber(Duration.ofSeconds(60))
                        .sourceId(40)
                        .build();
        // ntopng first, the sink binds later: JeroMQ keeps re-dialling until the port is up.
        try (ZmqTestSubscriber ntopng =
                ZmqTestSubscriber.connectUnverified("tcp://127.0.0.1:" + port)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.fromData(flows).sinkTo(ZmqSink.of(options)).name("zmq");
            env.execute("zmq sink test");
            List<ZmqTestSubscriber.Message> got =
                    ntopng.receiveUntil(
                            m -> ntopng.flowsReceived() >= flows.size(), Duration.ofSeconds(60));
            assertThat(ZmqPublisherITCase.checkAndDecode(got, 40))
                    .containsExactlyElementsOf(ZmqPublisherITCase.projected(flows));
        }
    }
}
