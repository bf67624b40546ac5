// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.kafka.RecordSink;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.codec.packet.PacketParser;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.packet.ParseResult;
import java.nio.ByteBuffer;
import java.time.Clock;

/**
 * Parses frames into packet summaries and batches them into {@code packets.raw} records. Each
 * summary goes to bucket {@code floorMod(flowHash, buckets)}, where {@link FlowHash} is the same
 * for both directions of a flow; each bucket has its own batch and the record key is the bucket
 * number (uint32 big-endian), so Kafka's key partitioner sends both directions of a flow to one
 * partition whatever the partition count. A batch is sent when it holds {@code batchPackets}
 * summaries or its first summary waited {@code lingerNanos}. Malformed frames are counted by reason
 * and skipped.
 *
 * <p>The job ages flows on packet time, which stands still when packets stop. So that flows still
 * end, the batcher sends clock marks ({@link PacketClockMark}) under every bucket's key (so they
 * reach every partition a packet can, after that bucket's packets): with {@link #ticksWhenQuiet}
 * (live captures), a tick for each bucket that sent nothing for that long, at the capture's packet
 * time carried on by the wall clock since its latest packet; and {@link #endOfCapture} at the end
 * of a file. Single-threaded: call it from the capture thread only.
 */
public final class PacketBatcher implements PacketSource.FrameConsumer {

    /** Number of key buckets; more buckets than partitions spreads load evenly. */
    public static final int DEFAULT_BUCKETS = 64;

    private final String topic;
    private final int interfaceIndex;
    private final int batchPackets;
    private final long lingerNanos;
    private final RecordSink sink;
    private final AgentMetrics metrics;
    private final Clock clock;
    private final PacketSummary.Builder summary = PacketSummary.builder();
    private final PacketBatchCodec.Encoder[] batches;
    private final long[] firstAt;
    private final byte[][] keys;
    private final long[] lastSentAt;
    private int linkType = -1;
    private long summaries;
    private long tickNanos;
    private long latestPacketNanos = Long.MIN_VALUE;
    private long latestPacketAt;

    public PacketBatcher(
            String topic,
            int interfaceIndex,
            int batchPackets,
            long lingerNanos,
            int buckets,
            RecordSink sink,
            AgentMetrics metrics,
            Clock clock) {
        this.topic = topic;
        this.interfaceIndex = interfaceIndex;
        this.batchPackets = batchPackets;
        this.lingerNanos = lingerNanos;
        this.sink = sink;
        this.metrics = metrics;
        this.clock = clock;
        this.batches = new PacketBatchCodec.Encoder[buckets];
        this.firstAt = new long[buckets];
        this.keys = new byte[buckets][];
        this.lastSentAt = new long[buckets];
        java.util.Arrays.fill(lastSentAt, System.nanoTime());
        for (int i = 0; i < buckets; i++) {
            keys[i] = new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
        }
    }

    @Override
    public void frame(ByteBuffer frame, int linkType, long timestampNanos, int originalLength) {
        ParseResult r =
                PacketParser.parse(
                        frame, linkType, timestampNanos, originalLength, interfaceIndex, summary);
        metrics.packet(r);
        if (r != ParseResult.OK) {
            return;
        }
        if (linkType != this.linkType) {
            flush();
            java.util.Arrays.fill(batches, null);
            this.linkType = linkType;
        }
        latestPacketNanos = Math.max(latestPacketNanos, summary.timestampNanos());
        latestPacketAt = System.nanoTime();
        int bucket = FlowHash.partition(summary.flowHash(), batches.length);
        PacketBatchCodec.Encoder batch = batches[bucket];
        if (batch == null) {
            batch = PacketBatchCodec.encoder(linkType, Math.min(batchPackets, 4096) * 48);
            batches[bucket] = batch;
        }
        if (batch.count() == 0) {
            firstAt[bucket] = System.nanoTime();
        }
        batch.add(summary);
        summaries++;
        if (batch.count() >= batchPackets) {
            send(bucket);
        }
        if ((summaries & 0xfff) == 0) {
            // Under steady load idle() is never called: check the linger of quiet buckets here.
            idle();
        }
    }

    @Override
    public void idle() {
        long now = System.nanoTime();
        for (int i = 0; i < batches.length; i++) {
            if (batches[i] != null && batches[i].count() > 0 && now - firstAt[i] >= lingerNanos) {
                send(i);
            }
        }
        if (tickNanos > 0 && latestPacketNanos != Long.MIN_VALUE) {
            long packetTime = latestPacketNanos + (now - latestPacketAt);
            for (int i = 0; i < batches.length; i++) {
                if ((batches[i] == null || batches[i].count() == 0)
                        && now - lastSentAt[i] >= tickNanos) {
                    mark(i, PacketClockMark.Kind.TICK, packetTime);
                }
            }
        }
    }

    /**
     * Sends ticks for buckets quiet for {@code tick} from now on (live capture). A file replayed at
     * its recorded speed does not tick: its packet time does not follow the wall clock.
     */
    public PacketBatcher ticksWhenQuiet(java.time.Duration tick) {
        this.tickNanos = tick.toNanos();
        return this;
    }

    /**
     * The capture ended: sends every partial batch, then an end-of-capture mark at the latest
     * packet time under every bucket's key, after which the job ends every flow of the capture.
     */
    public void endOfCapture() {
        flush();
        if (latestPacketNanos != Long.MIN_VALUE) {
            for (int i = 0; i < batches.length; i++) {
                mark(i, PacketClockMark.Kind.END_OF_CAPTURE, latestPacketNanos);
            }
        }
    }

    private void mark(int bucket, PacketClockMark.Kind kind, long packetTimeNanos) {
        byte[] value =
                new PacketClockMark(kind, packetTimeNanos, interfaceIndex)
                        .encode(Math.max(linkType, 0));
        metrics.clockMark(kind == PacketClockMark.Kind.END_OF_CAPTURE);
        lastSentAt[bucket] = System.nanoTime();
        sink.publish(new Outbound(topic, -1, clock.millis(), keys[bucket], value, null));
    }

    /** Sends every partial batch. */
    public void flush() {
        for (int i = 0; i < batches.length; i++) {
            if (batches[i] != null && batches[i].count() > 0) {
                send(i);
            }
        }
    }

    private void send(int bucket) {
        byte[] value = batches[bucket].finish();
        metrics.packetBatch();
        lastSentAt[bucket] = System.nanoTime();
        sink.publish(new Outbound(topic, -1, clock.millis(), keys[bucket], value, null));
    }

    /** Summaries batched so far. */
    public long summaries() {
        return summaries;
    }
}
