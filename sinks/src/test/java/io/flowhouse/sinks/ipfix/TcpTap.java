// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * An IPFIX-over-TCP collector for the tests: accepts connections one after another and splits each
 * stream into messages by the header's length field (RFC 7011 §10.4).
 */
final class TcpTap implements AutoCloseable {

    private final ServerSocket server;
    private final List<List<UdpTap.Datagram>> connections = new ArrayList<>();
    private final Thread thread;
    private volatile Socket current;
    private volatile boolean stop;

    TcpTap() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        thread = new Thread(this::run, "test-tcp-tap");
        thread.setDaemon(true);
        thread.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void run() {
        while (!stop) {
            try (Socket s = server.accept()) {
                current = s;
                List<UdpTap.Datagram> messages = new ArrayList<>();
                synchronized (connections) {
                    connections.add(messages);
                }
                DataInputStream in = new DataInputStream(s.getInputStream());
                InetSocketAddress from = (InetSocketAddress) s.getRemoteSocketAddress();
                while (true) {
                    byte[] header = new byte[4];
                    in.readFully(header);
                    int length = ((header[2] & 0xff) << 8) | (header[3] & 0xff);
                    byte[] m = new byte[length];
                    System.arraycopy(header, 0, m, 0, 4);
                    in.readFully(m, 4, length - 4);
                    synchronized (connections) {
                        messages.add(new UdpTap.Datagram(from, m, System.nanoTime()));
                        connections.notifyAll();
                    }
                }
            } catch (EOFException | SocketException e) {
                // Connection closed (by either side); accept the next one.
            } catch (IOException e) {
                if (!stop) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** Closes the current connection, as a restarting collector would. */
    void dropConnection() throws IOException {
        Socket s = current;
        if (s != null) {
            s.close();
        }
    }

    /** Waits until {@code done} holds for the per-connection message lists. */
    List<List<UdpTap.Datagram>> awaitUntil(
            Predicate<List<List<UdpTap.Datagram>>> done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (connections) {
            while (!done.test(connections) && System.nanoTime() - deadline < 0) {
                connections.wait(20);
            }
            List<List<UdpTap.Datagram>> copy = new ArrayList<>();
            for (List<UdpTap.Datagram> c : connections) {
                copy.add(new ArrayList<>(c));
            }
            return copy;
        }
    }

    @Override
    public void close() throws IOException {
        stop = true;
        server.close();
        dropConnection();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
