// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.udp;

import io.flowhouse.agent.config.CidrSet;
import io.flowhouse.agent.kafka.DatagramBatcher;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.kafka.RecordSink;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.AgentMetrics.Drop;
import io.flowhouse.agent.metrics.RateLimitedLog;
import io.flowhouse.agent.stamp.DatagramStamper;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.HeaderCheck;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each received datagram into a raw-datagram envelope for Kafka: allow-list, header check
 * (version, length, count only - decoding is Flink's job), then {@code flows.raw} keyed by exporter
 * (sFlow v5: by the agent address and sub-agent id of its header, {@link SflowAgentKey}) with its
 * stamp ({@link DatagramStamper}: the datagram's identity from here on, kept through the spool),
 * gathered with others of its key by the {@link DatagramBatcher} into one record, or {@code
 * flows.rejected} with the reason. The payload is copied once out of the Netty buffer, straight
 * into the batch record being written, before the buffer is released. Shared by every channel;
 * keeps no per-channel state.
 */
@Sharable
public final class DatagramToRawFlowHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    private static final Logger LOG = LoggerFactory.getLogger(DatagramToRawFlowHandler.class);

    private final CidrSet allowed;
    private final String rejectedTopic;
    private final boolean forwardRejected;
    private final byte[] agentId;
    private final RecordSink sink;
    private final DatagramBatcher batcher;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final DatagramStamper stamper;
    private final RateLimitedLog notAllowedLog = new RateLimitedLog(LOG, Duration.ofSeconds(30));
    private final RateLimitedLog rejectLog = new RateLimitedLog(LOG, Duration.ofSeconds(10));

    public DatagramToRawFlowHandler(
            CidrSet allowed,
            String rawTopic,
            String rejectedTopic,
            boolean forwardRejected,
            String agentId,
            RecordSink sink,
            AgentMetrics metrics,
            Clock clock,
            DatagramStamper stamper) {
        this(
                allowed,
                rawTopic,
                rejectedTopic,
                forwardRejected,
                agentId,
                sink,
                new DatagramBatcher(sink, rawTopic, 1, Integer.MAX_VALUE, Duration.ZERO, metrics),
                metrics,
                clock,
                stamper);
    }

    /**
     * @param batcher gathers accepted datagrams of one key into records for {@code rawTopic}
     *     (rejected ones go to {@code sink} one by one)
     */
    public DatagramToRawFlowHandler(
            CidrSet allowed,
            String rawTopic,
            String rejectedTopic,
            boolean forwardRejected,
            String agentId,
            RecordSink sink,
            DatagramBatcher batcher,
            AgentMetrics metrics,
            Clock clock,
            DatagramStamper stamper) {
        super(false);
        this.allowed = allowed;
        this.rejectedTopic = rejectedTopic;
        this.forwardRejected = forwardRejected;
        this.agentId = agentId.getBytes(StandardCharsets.UTF_8);
        this.sink = sink;
        this.batcher = batcher;
        this.metrics = metrics;
        this.clock = clock;
        this.stamper = stamper;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        try {
            handle(packet);
        } finally {
            packet.release();
        }
    }

    private void handle(DatagramPacket packet) {
        InetSocketAddress sender = packet.sender();
        IpAddress exporter = IpAddress.of(sender.getAddress());
        if (!allowed.admits(exporter)) {
            metrics.dropped(Drop.NOT_ALLOWED);
            notAllowedLog.warn("dropping datagram from {}: not in udp.allowed-exporters", exporter);
            return;
        }
        int port = sender.getPort();
        long now = clock.millis();
        ByteBuf content = packet.content();
        ByteBuffer payload =
                content.nioBufferCount() == 1
                        ? content.nioBuffer()
                        : ByteBuffer.wrap(io.netty.buffer.ByteBufUtil.getBytes(content));
        HeaderCheck.Verdict verdict = HeaderCheck.check(payload);
        metrics.traffic(exporter, verdict.ok() ? verdict.version() : 0).add(payload.remaining());
        if (verdict.ok()) {
            // sFlow's sequences are per agent and sub-agent, named in its header: key by those,
            // so one agent's datagrams stay in one partition whatever socket they came from.
            byte[] key =
                    verdict.version() == FlowRecord.VERSION_SFLOW5
                            ? SflowAgentKey.encodeFromHeader(payload)
                            : ExporterPartitionKey.encode(exporter, port);
            batcher.add(
                    key,
                    now,
                    new StampedEnvelope(
                            exporter,
                            port,
                            now,
                            agentId,
                            payload,
                            stamper.stamp(new ExporterKey(exporter, port))));
            return;
        }
        byte[] key = ExporterPartitionKey.encode(exporter, port);
        String reason = verdict.reason().name();
        metrics.rejected(reason);
        rejectLog.warn("rejecting datagram from {}: {}", exporter, verdict.text());
        if (!forwardRejected) {
            metrics.dropped(Drop.REJECTED_NOT_FORWARDED);
            return;
        }
        byte[] value =
                RawDatagramCodec.encodeRejected(
                        exporter, port, now, agentId, payload, reason, verdict.text());
        sink.publish(new Outbound(rejectedTopic, -1, now, key, value, reason));
    }

    /** An accepted datagram's envelope, written by the batcher from the receive buffer. */
    private record StampedEnvelope(
            IpAddress exporter,
            int port,
            long receivedMillis,
            byte[] agentId,
            ByteBuffer payload,
            DatagramStamp stamp)
            implements DatagramBatcher.Envelope {

        @Override
        public int size() {
            return RawDatagramCodec.encodedSize(
                    port, receivedMillis, agentId, payload.remaining(), stamp);
        }

        @Override
        public int writeTo(byte[] out, int offset) {
            return RawDatagramCodec.encodeInto(
                    out, offset, exporter, port, receivedMillis, agentId, payload, stamp);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        rejectLog.error("udp channel error: {}", cause.toString());
    }
}
