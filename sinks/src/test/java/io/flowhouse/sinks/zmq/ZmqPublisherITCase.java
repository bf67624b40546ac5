// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.ZMQ;

/** The publisher against real ZMQ subscribers on tcp://127.0.0.1, read back independently. */
class ZmqPublisherITCase {

    private static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    static ZmqSinkOptions.Builder bindOptions() {
        return ZmqSinkOptions.builder("tcp://127.0.0.1:0")
                .overflow(ZmqSinkOptions.Overflow.BLOCK)
                .awaitSubscriber(Duration.ofSeconds(30))
                .eventInterval(Duration.ofMillis(200))
                .linger(Duration.ofMillis(20));
    }

    /**
     * Publishes {@code flows} through a publisher bound on an ephemeral port and returns what a
     * subscriber connected to it received, after checking the wire rules on every message.
     */
    static List<ZmqTestSubscriber.Message> publishAndReceive(
            ZmqSinkOptions options, List<FlowRecord> flows) throws Exception {
        try (ZmqPublisher pub = new ZmqPublisher(options, options.sourceId());
                ZmqTestSubscriber sub =
                        ZmqTestSubscriber.connect("tcp://127.0.0.1:" + pub.boundPort())) {
            for (FlowRecord f : flows) {
                assertThat(pub.publish(f)).isTrue();
            }
            pub.flush(RECEIVE_TIMEOUT);
            // connect() returned after the handshake, so the publisher held its first message
            // for the subscription; without one everything went nowhere (PUB semantics).
            assertThat(pub.metrics().subscriptions())
                    .as("subscriptions seen by the publisher")
                    .isPositive();
            List<ZmqTestSubscriber.Message> got =
                    sub.receiveUntil(
                            m ->
                                    sub.flowsReceived() >= flows.size()
                                            && m.stream()
                                                    .anyMatch(
                                                            x -> x.header().url().equals("event")),
                            RECEIVE_TIMEOUT);
            assertThat(pub.metrics().flowsDropped()).isZero();
            assertThat(pub.metrics().flowsSent()).isEqualTo(flows.size());
            return new ArrayList<>(got);
        }
    }

    /** Asserts header rules and returns the flows in arrival order, rebuilt from TLV. */
    static List<FlowRecord> checkAndDecode(List<ZmqTestSubscriber.Message> got, long sourceId) {
        List<FlowRecord> out = new ArrayList<>();
        long expectedId = -1;
        for (ZmqTestSubscriber.Message m : got) {
            NtopngWireDecoder.Header h = m.header();
            assertThat(h.version()).isEqualTo(4);
            assertThat(h.sourceId()).isEqualTo(sourceId);
            assertThat(h.uncompressedSize()).isEqualTo(m.payload().length);
            assertThat(h.compressedSize()).isEqualTo(m.payload().length);
            assertThat(m.payload().length).isLessThan(128 * 1024);
            if (expectedId >= 0) {
                assertThat(h.msgId()).as("msg_id continuity").isEqualTo(expectedId);
            }
            expectedId = h.msgId() + 1;
            if (h.url().equals("flow")) {
                assertThat(h.flags()).isEqualTo(2);
                for (NtopngWireDecoder.TlvRecord r : NtopngWireDecoder.tlv(m.payload())) {
                    out.add(ZmqFlows.fromTlv(r));
                }
            } else {
                assertThat(h.url()).isIn("event", "template");
                assertThat(h.flags()).isZero();
            }
        }
        return out;
    }

    static List<FlowRecord> projected(List<FlowRecord> flows) {
        return flows.stream().map(ZmqFlows::project).toList();
    }

    @Test
    void subscriberReadsBackEveryFlowFieldByField() throws Exception {
        List<FlowRecord> flows = ZmqFlows.synthetic(20_000, 7);
        ZmqSinkOptions options = bindOptions().sourceId(3).build();
        List<ZmqTestSubscriber.Message> got = publishAndReceive(options, flows);
        assertThat(got.get(0).header().url()).isEqualTo("template");
        assertThat(got.get(0).header().msgId()).isZero();
        assertThat(checkAndDecode(got, 3)).containsExactlyElementsOf(projected(flows));
        long flowMessages = got.stream().filter(m -> m.header().url().equals("flow")).count();
        assertThat(flowMessages).as("many flows per message").isLessThan(flows.size() / 100);
    }

    @Test
    void eventCarriesTimeoutsAndCountersAndTemplateListsTheMandatoryFields() throws Exception {
        List<FlowRecord> flows = ZmqFlows.synthetic(1_000, 11);
        ZmqSinkOptions options = bindOptions().sourceId(9).timeouts(300, 45, 310).build();
        List<ZmqTestSubscriber.Message> got = publishAndReceive(options, flows);
        JsonNode event = null;
        JsonNode template = null;
        for (ZmqTestSubscriber.Message m : got) {
            String text = new String(m.payload(), StandardCharsets.UTF_8);
            if (m.header().url().equals("event")) {
                event = JSON.readTree(text);
            } else if (m.header().url().equals("template")) {
                template = JSON.readTree(text);
            }
        }
        assertThat(event).isNotNull();
        assertThat(event.path("timeout").path("lifetime").asInt()).isEqualTo(300);
        assertThat(event.path("timeout").path("idle").asInt()).isEqualTo(45);
        assertThat(event.path("timeout").path("collected_lifetime").asInt()).isEqualTo(310);
        assertThat(event.path("probe").path("unique_source_id").asLong()).isEqualTo(9);
        assertThat(event.path("time").asLong()).isPositive();
        assertThat(template).isNotNull();
        List<String> names = new ArrayList<>();
        template.forEach(f -> names.add(f.path("name").asText()));
        // ntopng's parseTemplate warns when one of these is missing.
        assertThat(names)
                .contains(
                        "FIRST_SWITCHED",
                        "LAST_SWITCHED",
                        "L4_SRC_PORT",
                        "L4_DST_PORT",
                        "IP_PROTOCOL_VERSION",
                        "PROTOCOL",
                        "IN_BYTES",
                        "IN_PKTS",
                        "OUT_BYTES",
                        "OUT_PKTS");
    }

    @Test
    void smallMessagesStayUnderTheConfiguredLimit() throws Exception {
        List<FlowRecord> flows = ZmqFlows.synthetic(3_000, 5);
        ZmqSinkOptions options = bindOptions().maxMessageBytes(4096).build();
        List<ZmqTestSubscriber.Message> got = publishAndReceive(options, flows);
        for (ZmqTestSubscriber.Message m : got) {
            if (m.header().url().equals("flow")) {
                assertThat(m.payload().length).isLessThanOrEqualTo(4096);
            }
        }
        assertThat(checkAndDecode(got, 0)).containsExactlyElementsOf(projected(flows));
    }

    @Test
    void collectorModeConnectsToABoundNtopngWithCurve(@TempDir Path dir) throws Exception {
        ZMQ.Curve.KeyPair server = ZMQ.Curve.generateKeyPair();
        Path serverPublic = Files.writeString(dir.resolve("ntopng.pub"), server.publicKey + "\n");
        // The client pair as a zcert file, the other accepted format.
        ZMQ.Curve.KeyPair client = ZMQ.Curve.generateKeyPair();
        Path clientCert =
                Files.writeString(
                        dir.resolve("probe.cert"),
                        "curve\n    public-key = \""
                                + client.publicKey
                                + "\"\n    secret-key = \""
                                + client.secretKey
                                + "\"\n");
        List<FlowRecord> flows = ZmqFlows.synthetic(2_000, 13);
        try (ZmqTestSubscriber ntopng =
                ZmqTestSubscriber.bindCurveServer(
                        "tcp://127.0.0.1:*",
                        ZMQ.Curve.z85Decode(server.publicKey),
                        ZMQ.Curve.z85Decode(server.secretKey))) {
            ZmqSinkOptions options =
                    ZmqSinkOptions.builder("tcp://127.0.0.1:" + ntopng.boundPort() + "c")
                            .overflow(ZmqSinkOptions.Overflow.BLOCK)
                            .awaitSubscriber(Duration.ofSeconds(30))
                            .curveServerPublicKeyFile(serverPublic)
                            .curvePublicKeyFile(clientCert)
                            .curveSecretKeyFile(clientCert)
                            .sourceId(21)
                            .build();
            assertThat(options.connectMode()).isTrue();
            try (ZmqPublisher pub = new ZmqPublisher(options, 21)) {
                for (FlowRecord f : flows) {
                    pub.publish(f);
                }
                pub.flush(RECEIVE_TIMEOUT);
                List<ZmqTestSubscriber.Message> got =
                        ntopng.receiveUntil(
                                m -> ntopng.flowsReceived() >= flows.size(), RECEIVE_TIMEOUT);
                assertThat(checkAndDecode(got, 21)).containsExactlyElementsOf(projected(flows));
            }
        }
    }

    @Test
    void plainSubscriberGetsNothingFromACurveServerPublisher(@TempDir Path dir) throws Exception {
        ZMQ.Curve.KeyPair pair = ZMQ.Curve.generateKeyPair();
        Path pub = Files.writeString(dir.resolve("pub"), pair.publicKey);
        Path sec = Files.writeString(dir.resolve("sec"), pair.secretKey);
        Path allowed =
                Files.writeString(
                        dir.resolve("allowed"), ZMQ.Curve.generateKeyPair().publicKey + "\n");
        ZmqSinkOptions options =
                bindOptions()
                        .awaitSubscriber(Duration.ofSeconds(2))
                        .curvePublicKeyFile(pub)
                        .curveSecretKeyFile(sec)
                        .curveAllowedClientsFile(allowed)
                        .build();
        try (ZmqPublisher publisher = new ZmqPublisher(options, 0);
                ZmqTestSubscriber plain =
                        ZmqTestSubscriber.connectUnverified(
                                "tcp://127.0.0.1:" + publisher.boundPort())) {
            for (FlowRecord f : ZmqFlows.synthetic(100, 1)) {
                publisher.publish(f);
            }
            publisher.flush(RECEIVE_TIMEOUT);
            assertThat(plain.receiveFor(Duration.ofSeconds(1))).isEmpty();
            assertThat(publisher.metrics().subscriptions()).isZero();
        }
    }

    /** With {@code slow-subscriber=wait} (XPUB_NODROP) a stalled subscriber stalls the socket. */
    @Test
    void fullQueueDropsAndCountsInsteadOfGrowing() throws Exception {
        ZmqSinkOptions options =
                bindOptions()
                        .slowSubscriber(ZmqSinkOptions.SlowSubscriber.WAIT)
                        .overflow(ZmqSinkOptions.Overflow.DROP)
                        .queueCapacity(1_000)
                        .sendHwm(4)
                        .build();
        List<FlowRecord> flows = ZmqFlows.synthetic(10_000, 3);
        int offered = 0;
        ZmqPublisher.Metrics m;
        try (ZmqPublisher pub = new ZmqPublisher(options, 0);
                ZmqTestSubscriber stalled =
                        ZmqTestSubscriber.connect("tcp://127.0.0.1:" + pub.boundPort())) {
            // The subscriber stops reading: kernel buffers, then the HWM, then the queue fill up.
            stalled.receiveUntil(got -> !got.isEmpty(), Duration.ofSeconds(30));
            stalled.stall();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (pub.metrics().flowsDropped() == 0 && System.nanoTime() - deadline < 0) {
                for (FlowRecord f : flows) {
                    pub.publish(f);
                    offered++;
                }
            }
            assertThat(pub.metrics().queueDepth()).isLessThanOrEqualTo(1_000);
            pub.close(Duration.ofMillis(200));
            m = pub.metrics();
        }
        assertThat(m.flowsDropped()).isPositive();
        assertThat(m.flowsOffered()).isEqualTo(offered);
        assertThat(m.flowsSent() + m.flowsDropped()).isEqualTo(offered);
    }
}
