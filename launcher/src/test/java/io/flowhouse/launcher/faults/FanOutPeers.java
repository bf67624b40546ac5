// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** The job's fan-out peers of the hostile rows: an IPFIX collector and ZMQ subscribers. */
final class FanOutPeers {

    private FanOutPeers() {}

    /**
     * A TCP IPFIX collector on 127.0.0.1 that reads (and discards) every connection until {@link
     * #stopReading}: then it keeps its connections open and accepts new ones, reading nothing. Its
     * receive buffer is small, so the exporter's socket fills after a few kilobytes.
     */
    static final class IpfixCollector implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> accepted = new ArrayList<>();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong connections = new AtomicLong();
        private volatile boolean reading = true;
        private volatile boolean closed;

        IpfixCollector(int receiveBufferBytes) throws IOException {
            server = new ServerSocket();
            // Before bind, so that every accepted socket has it (and a small TCP window).
            server.setReceiveBufferSize(receiveBufferBytes);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread t = new Thread(this::accept, "ipfix-collector");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        void stopReading() {
            reading = false;
        }

        void resumeReading() {
            reading = true;
        }

        private void accept() {
            while (!closed) {
                try {
                    Socket s = server.accept();
                    synchronized (accepted) {
                        accepted.add(s);
                    }
                    connections.incrementAndGet();
                    Thread r = new Thread(() -> read(s), "ipfix-collector-read");
                    r.setDaemon(true);
                    r.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void read(Socket s) {
            byte[] buf = new byte[65_536];
            try (InputStream in = s.getInputStream()) {
                while (!closed) {
                    if (!reading) {
                        Thread.sleep(100);
                        continue;
                    }
                    int n = in.read(buf);
                    if (n < 0) {
                        return;
                    }
                    bytes.addAndGet(n);
                }
            } catch (IOException e) {
                // The exporter gave up on this connection.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() throws IOException {
            closed = true;
            server.close();
            synchronized (accepted) {
                for (Socket s : accepted) {
                    s.close();
                }
            }
        }
    }

    /**
     * A ZMQ subscriber to every topic that counts the messages it received and the ones it missed,
     * as ntopng does: by the gaps in the header's {@code msg_id} (big endian at byte 28, +1 per
     * message of one source). {@link #readAll} runs it on its own thread; one never read just holds
     * its socket until {@link #drain}.
     */
    static final class ZmqSubscriber implements AutoCloseable {
        private final ZMQ.Socket socket;
        final AtomicLong messages = new AtomicLong();
        final AtomicLong missed = new AtomicLong();
        private volatile long last = -1;
        private volatile boolean running = true;
        private Thread thread;

        /** Connects; {@code receiveHwm} 0 is no bound (a reader that keeps up). */
        ZmqSubscriber(ZContext context, String endpoint, int receiveHwm, int receiveBuffer) {
            socket = context.createSocket(SocketType.SUB);
            socket.setRcvHWM(receiveHwm);
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            socket.setReceiveTimeOut(200);
            socket.subscribe(new byte[0]);
            socket.connect(endpoint);
        }

        /** Reads on its own thread until {@link #close}. */
        ZmqSubscriber readAll() {
            thread =
                    new Thread(
                            () -> {
                                while (running) {
                                    receive();
                                }
                            },
                            "zmq-reading-subscriber");
            thread.setDaemon(true);
            thread.start();
            return this;
        }

        /**
         * Reads what is queued for it until it reaches message {@code id} (the publisher never goes
         * quiet: events every second), at most {@code maxMillis}.
         */
        void drainTo(long id, long maxMillis) {
            long until = System.currentTimeMillis() + maxMillis;
            while (last < id && System.currentTimeMillis() < until) {
                receive();
            }
        }

        /** The last message id received; -1 before the first. */
        long lastId() {
            return last;
        }

        private boolean receive() {
            byte[] header = socket.recv(0);
            if (header == null) {
                return false;
            }
            while (socket.hasReceiveMore()) {
                socket.recv(0);
            }
            if (header.length >= 32) {
                long id = ByteBuffer.wrap(header, 28, 4).getInt() & 0xffff_ffffL;
                if (last >= 0 && id > last + 1) {
                    missed.addAndGet(id - last - 1);
                }
                last = id;
                messages.incrementAndGet();
            }
            return true;
        }

        /** Stops reading and closes the socket; once. */
        void stop() {
            if (!running) {
                return;
            }
            running = false;
            if (thread != null) {
                try {
                    thread.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            socket.close();
        }

        @Override
        public void close() {
            stop();
        }
    }
}
