// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.ZMQ;

/**
 * The publisher as CURVE server with a client allow-list (its ZAP handler): a listed client reads
 * every flow, a client with a valid key pair that is not on the list is refused and gets nothing.
 */
class ZmqCurveAllowListITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void aClientOffTheAllowListIsRefused(@TempDir Path dir) throws Exception {
        ZMQ.Curve.KeyPair server = ZMQ.Curve.generateKeyPair();
        ZMQ.Curve.KeyPair allowed = ZMQ.Curve.generateKeyPair();
        ZMQ.Curve.KeyPair stranger = ZMQ.Curve.generateKeyPair();
        Path pub = Files.writeString(dir.resolve("publisher.pub"), server.publicKey + "\n");
        Path sec = Files.writeString(dir.resolve("publisher.key"), server.secretKey + "\n");
        Path allowList =
                Files.writeString(
                        dir.resolve("allowed-clients"),
                        "# ntopng on the collector host\n" + allowed.publicKey + " ntopng-1\n");
        ZmqSinkOptions options =
                ZmqPublisherITCase.bindOptions()
                        .curvePublicKeyFile(pub)
                        .curveSecretKeyFile(sec)
                        .curveAllowedClientsFile(allowList)
                        .build();
        assertThat(options.curveServer()).isTrue();
        List<FlowRecord> flows = ZmqFlows.synthetic(2_000, 23);
        try (ZmqPublisher publisher = new ZmqPublisher(options, 4)) {
            String address = "tcp://127.0.0.1:" + publisher.boundPort();
            try (ZmqTestSubscriber refused =
                            ZmqTestSubscriber.connectCurveClient(
                                    address, stranger, server.publicKey, false);
                    ZmqTestSubscriber listed =
                            ZmqTestSubscriber.connectCurveClient(
                                    address, allowed, server.publicKey, true)) {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while ((publisher.metrics().curveRefused() == 0
                                || publisher.metrics().subscriptions() <= 0)
                        && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10);
                }
                for (FlowRecord f : flows) {
                    publisher.publish(f);
                }
                publisher.flush(TIMEOUT);
                List<ZmqTestSubscriber.Message> got =
                        listed.receiveUntil(m -> listed.flowsReceived() >= flows.size(), TIMEOUT);
                assertThat(ZmqPublisherITCase.checkAndDecode(got, 4))
                        .containsExactlyElementsOf(ZmqPublisherITCase.projected(flows));
                assertThat(refused.receiveFor(Duration.ofSeconds(1))).isEmpty();
                ZmqPublisher.Metrics m = publisher.metrics();
                assertThat(m.curveRefused()).as("refused handshakes").isPositive();
                assertThat(m.curveAccepted()).as("admitted handshakes").isPositive();
                // Only the listed client's 8 topic subscriptions reached the publisher.
                assertThat(m.subscriptions()).isEqualTo(8);
            }
        }
    }
}
