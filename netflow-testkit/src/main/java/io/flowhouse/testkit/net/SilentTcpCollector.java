// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP peer that accepts every connection on 127.0.0.1 and never reads from it: a collector that
 * stopped reading. Its receive buffer is small, so the sender's socket buffers fill after a few
 * kilobytes and a blocking write would wait forever.
 */
public final class SilentTcpCollector implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> accepted = new ArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread thread;
    private volatile boolean stop;

    /** Binds an ephemeral port with a {@code receiveBufferBytes} receive buffer (before listen). */
    public SilentTcpCollector(int receiveBufferBytes) throws IOException {
        server = new ServerSocket();
        // Set before bind so that every accepted socket has it (and a small TCP window).
        server.setReceiveBufferSize(receiveBufferBytes);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        thread = new Thread(this::run, "silent-tcp-collector");
        thread.setDaemon(true);
        thread.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    private void run() {
        while (!stop) {
            try {
                Socket s = server.accept();
                synchronized (accepted) {
                    accepted.add(s);
                }
                connections.incrementAndGet();
            } catch (IOException e) {
                if (!stop) {
                    throw new IllegalStateException("silent collector accept failed", e);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        stop = true;
        server.close();
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
        }
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
