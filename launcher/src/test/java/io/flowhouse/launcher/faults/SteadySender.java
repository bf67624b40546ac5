// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends {@link FaultSupport#v5(int, int)} datagrams with consecutive sequence numbers at a steady
 * rate over loopback, remembering which ones were sent while the test had marked the receiver as
 * down: those, and only those, are the loss a test may accept.
 */
final class SteadySender implements AutoCloseable {

    private final DatagramChannel channel;
    private final InetSocketAddress target;
    private final int flowsPerDatagram;
    private final BitSet sentWhileDown = new BitSet();
    private volatile boolean down;
    private int next;
    private long flows;
    private long packets;
    private long bytes;

    SteadySender(int port, int flowsPerDatagram) throws IOException {
        this.channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress("127.0.0.1", 0));
        this.target = new InetSocketAddress("127.0.0.1", port);
        this.flowsPerDatagram = flowsPerDatagram;
    }

    /** Sends {@code count} datagrams at {@code perSecond}; returns when the last one is out. */
    void send(int count, int perSecond) {
        long interval = 1_000_000_000L / perSecond;
        long due = System.nanoTime();
        for (int i = 0; i < count; i++) {
            LockSupport.parkNanos(due - System.nanoTime());
            due += interval;
            sendOne();
        }
    }

    private synchronized void sendOne() {
        int seq = next++;
        if (down) {
            sentWhileDown.set(seq);
        }
        flows += flowsPerDatagram;
        packets += (long) flowsPerDatagram * FaultSupport.packets(seq);
        bytes += (long) flowsPerDatagram * FaultSupport.bytes(seq);
        try {
            channel.send(ByteBuffer.wrap(FaultSupport.v5(seq, flowsPerDatagram)), target);
        } catch (IOException e) {
            // A closed port answers with ICMP unreachable; the datagram is lost, as counted.
            if (!down) {
                throw new UncheckedIOException(e);
            }
        }
    }

    void down(boolean value) {
        down = value;
    }

    synchronized int sent() {
        return next;
    }

    synchronized int sentWhileDown() {
        return sentWhileDown.cardinality();
    }

    synchronized boolean wasSentWhileDown(int seq) {
        return sentWhileDown.get(seq);
    }

    synchronized long flows() {
        return flows;
    }

    synchronized long packets() {
        return packets;
    }

    synchronized long bytes() {
        return bytes;
    }

    /** Flows/packets/bytes of the datagrams sent while down. */
    synchronized long[] lostTotals() {
        long[] t = new long[3];
        for (int s = sentWhileDown.nextSetBit(0); s >= 0; s = sentWhileDown.nextSetBit(s + 1)) {
            t[0] += flowsPerDatagram;
            t[1] += (long) flowsPerDatagram * FaultSupport.packets(s);
            t[2] += (long) flowsPerDatagram * FaultSupport.bytes(s);
        }
        return t;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
