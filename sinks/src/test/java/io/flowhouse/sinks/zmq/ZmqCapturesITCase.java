// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every test capture, decoded by the codec, published over tcp://127.0.0.1 and read back by the
 * independent decoder: exactly the flows sent, field by field, in order, with the ground-truth
 * totals, continuous msg_ids, messages under 128 KiB and event messages.
 */
class ZmqCapturesITCase {

    static Stream<CaptureFlows.Capture> captures() {
        return CaptureFlows.ALL.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void ntopngReadsBackEveryFlowOfTheCapture(CaptureFlows.Capture capture) throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(capture);
        assertThat(flows).hasSize(capture.records());

        ZmqSinkOptions options =
                ZmqPublisherITCase.bindOptions()
                        .sourceId(capture.file().hashCode() & 0xffff)
                        .eventInterval(Duration.ofMillis(100))
                        .build();
        List<ZmqTestSubscriber.Message> got = ZmqPublisherITCase.publishAndReceive(options, flows);
        List<FlowRecord> back = ZmqPublisherITCase.checkAndDecode(got, options.sourceId());

        assertThat(back).containsExactlyElementsOf(ZmqPublisherITCase.projected(flows));
        assertThat(CaptureFlows.packets(back)).isEqualTo(capture.packets());
        assertThat(CaptureFlows.bytes(back)).isEqualTo(capture.bytes());
        assertThat(got).anyMatch(m -> m.header().url().equals("event"));
    }
}
