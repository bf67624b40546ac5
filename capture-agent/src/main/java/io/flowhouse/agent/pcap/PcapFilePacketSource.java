// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import io.flowhouse.codec.pcap.PcapReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads a pcap or pcapng file with the codec's memory-mapped pure-Java {@link PcapReader}, as fast
 * as possible or paced to the recorded timestamps times a speed factor.
 *
 * <p>Why not pcap4j here: pcap4j reads files through libpcap via JNA, one native call and several
 * Java objects per packet, and reaches 0.3-0.6 M packets/s on this machine; the memory-mapped
 * reader hands out a view per packet with no copy and no native call and reaches tens of M
 * packets/s, so the file path is bounded by parsing and Kafka, not by reading. pcap4j stays the
 * live-capture path, where libpcap is the only way in.
 */
public final class PcapFilePacketSource implements PacketSource {

    private final Path file;
    private final double speed;
    private volatile boolean closed;

    /**
     * @param file pcap/pcapng file
     * @param speed 0 for as fast as possible, 1.0 for recorded speed, N for N times faster
     */
    public PcapFilePacketSource(Path file, double speed) {
        this.file = file;
        this.speed = speed;
    }

    @Override
    public long run(FrameConsumer consumer) throws IOException {
        long delivered = 0;
        try (PcapReader reader = PcapReader.open(file)) {
            long firstTs = Long.MIN_VALUE;
            long startNanos = 0;
            while (!closed && reader.next()) {
                long ts = reader.timestampNanos();
                if (speed > 0) {
                    if (firstTs == Long.MIN_VALUE) {
                        firstTs = ts;
                        startNanos = System.nanoTime();
                    } else {
                        long due = startNanos + (long) ((ts - firstTs) / speed);
                        long wait = due - System.nanoTime();
                        if (wait > 200_000) {
                            consumer.idle();
                            LockSupport.parkNanos(wait);
                        }
                    }
                }
                consumer.frame(
                        reader.packet(), reader.packetLinkType(), ts, reader.originalLength());
                delivered++;
            }
        }
        consumer.idle();
        return delivered;
    }

    @Override
    public String describe() {
        return "file " + file + (speed > 0 ? " at " + speed + "x" : " at max speed");
    }

    @Override
    public void close() {
        closed = true;
    }
}
