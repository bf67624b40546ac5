// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A subscriber that never reads beside one that does, with the default {@code slow-subscriber=drop}
 * and the default {@code send-hwm}: the reading one gets every message in order, the publisher
 * never waits (nothing is dropped from its queue), and the stalled one loses its own messages,
 * which it sees as msg_id gaps (what ntopng counts as ZMQ drops).
 */
class ZmqSlowSubscriberITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void aSubscriberThatNeverReadsLosesOnlyItsOwnMessages() throws Exception {
        List<FlowRecord> batch = ZmqFlows.synthetic(20_000, 17);
        int rounds = 30;
        long total = (long) batch.size() * rounds;
        ZmqSinkOptions options =
                ZmqPublisherITCase.bindOptions()
                        .overflow(ZmqSinkOptions.Overflow.DROP)
                        .maxMessageBytes(4096)
                        // Far above one round (~1,270 messages of <= 4 KB): the reading
                        // subscriber, which has read each round before the next starts, never
                        // reaches it even when its thread is starved on a loaded machine (at 1,000
                        // it lost ~70 messages of a round in CI); the stalled one, with ~38,000
                        // messages (~150 MB) coming, fills it, its TCP buffers and its receive HWM.
                        .sendHwm(10_000)
                        .queueCapacity(1 << 20)
                        .build();
        assertThat(options.slowSubscriber()).isEqualTo(ZmqSinkOptions.SlowSubscriber.DROP);
        try (ZmqPublisher pub = new ZmqPublisher(options, 5);
                ZmqTestSubscriber reader =
                        ZmqTestSubscriber.connect("tcp://127.0.0.1:" + pub.boundPort());
                ZmqTestSubscriber stalled =
                        ZmqTestSubscriber.connect("tcp://127.0.0.1:" + pub.boundPort())) {
            // Both are subscribed once they got a message (an event, every 200 ms); XPUB passes on
            // only the first subscription to a topic, so the publisher's count cannot tell.
            reader.receiveUntil(x -> !x.isEmpty(), TIMEOUT);
            stalled.receiveUntil(x -> !x.isEmpty(), TIMEOUT);
            stalled.stall();

            long start = System.nanoTime();
            for (int r = 0; r < rounds; r++) {
                for (FlowRecord f : batch) {
                    assertThat(pub.publish(f)).isTrue();
                }
                pub.flush(TIMEOUT);
                // A round (~1,270 messages) is far below what ZMQ and TCP buffer for a subscriber,
                // so the reading one, given the time, never falls behind by more than that.
                long published = (long) batch.size() * (r + 1);
                List<ZmqTestSubscriber.Message> sofar =
                        reader.receiveUntil(x -> reader.flowsReceived() >= published, TIMEOUT);
                assertThat(reader.flowsReceived())
                        .as(
                                "flows at the reading subscriber after round %d (%d messages,"
                                        + " last msg_id %d of %d)",
                                r,
                                sofar.size(),
                                sofar.isEmpty() ? -1 : sofar.get(sofar.size() - 1).header().msgId(),
                                pub.metrics().lastMsgId())
                        .isEqualTo(published);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ZmqPublisher.Metrics m = pub.metrics();
            assertThat(m.flowsDropped()).as("the publisher never waited").isZero();
            assertThat(m.flowsSent()).isEqualTo(total);

            List<ZmqTestSubscriber.Message> got =
                    reader.receiveUntil(x -> reader.flowsReceived() >= total, TIMEOUT);
            assertThat(reader.flowsReceived())
                    .as("flows at the reading subscriber")
                    .isEqualTo(total);
            // msg_id strictly +1 over every message: the reading one lost nothing.
            ZmqPublisherITCase.checkAndDecode(got, 5);

            stalled.resume();
            List<ZmqTestSubscriber.Message> late =
                    stalled.receiveUntil(
                            x ->
                                    !x.isEmpty()
                                            && x.get(x.size() - 1).header().msgId()
                                                    >= m.lastMsgId(),
                            TIMEOUT);
            long gaps = 0;
            for (int i = 1; i < late.size(); i++) {
                gaps += late.get(i).header().msgId() - late.get(i - 1).header().msgId() - 1;
            }
            assertThat(gaps)
                    .as("messages the stalled subscriber lost (its msg_id gaps)")
                    .isPositive();
            assertThat(stalled.flowsReceived()).isLessThan(total);
            System.out.printf(
                    "slow subscriber: %,d flows in %.1f s; reader got all %,d messages; stalled one"
                            + " got %,d messages, %,d lost (msg_id gaps)%n",
                    total, seconds, got.size(), late.size(), gaps);
        }
    }
}
