// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/** A UDP collector for the tests that keeps every datagram it receives, with its source. */
final class UdpTap implements AutoCloseable {

    /** One received datagram. */
    record Datagram(InetSocketAddress from, byte[] payload, long receivedNanos) {}

    private final DatagramSocket socket;
    private final List<Datagram> received = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stop;

    UdpTap() throws IOException {
        socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        socket.setReceiveBufferSize(16 << 20);
        socket.setSoTimeout(50);
        thread = new Thread(this::run, "test-udp-tap");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    private void run() {
        byte[] buf = new byte[65_535];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        while (!stop) {
            try {
                socket.receive(p);
                Datagram d =
                        new Datagram(
                                (InetSocketAddress) p.getSocketAddress(),
                                Arrays.copyOf(buf, p.getLength()),
                                System.nanoTime());
                synchronized (received) {
                    received.add(d);
                    received.notifyAll();
                }
            } catch (SocketTimeoutException e) {
                // Look at the stop flag.
            } catch (SocketException e) {
                return;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Waits until {@code done} holds or the timeout passes; returns a copy of what arrived. */
    List<Datagram> awaitUntil(Predicate<List<Datagram>> done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (received) {
            while (!done.test(received) && System.nanoTime() - deadline < 0) {
                received.wait(20);
            }
            return new ArrayList<>(received);
        }
    }

    /** Waits until no datagram arrived for {@code quiet} (bounded by {@code max}). */
    List<Datagram> awaitQuiet(Duration quiet, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        int seen = -1;
        while (System.nanoTime() - deadline < 0) {
            int now;
            synchronized (received) {
                now = received.size();
            }
            if (now == seen && now > 0) {
                break;
            }
            seen = now;
            Thread.sleep(quiet.toMillis());
        }
        synchronized (received) {
            return new ArrayList<>(received);
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
    }
}
