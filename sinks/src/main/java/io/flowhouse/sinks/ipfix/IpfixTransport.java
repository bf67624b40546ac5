// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One IPFIX transport session to one collector. Messages are self-delimiting (RFC 7011 §10), so UDP
 * sends one message per datagram and TCP writes them back to back.
 */
abstract class IpfixTransport implements AutoCloseable {

    /** Opens the transport for a target; UDP is ready at once, TCP connects lazily. */
    static IpfixTransport open(IpfixExporterOptions.Target target, IpfixExporterOptions options)
            throws IOException {
        InetSocketAddress address = new InetSocketAddress(target.host(), target.port());
        if (address.isUnresolved()) {
            throw new IOException("cannot resolve ipfix collector " + target);
        }
        return target.transport() == IpfixExporterOptions.Transport.TCP
                ? new Tcp(address, options)
                : new Udp(address, options);
    }

    /**
     * True when a message can be sent now. TCP makes at most one non-blocking connection step per
     * call, and only when its backoff has passed.
     */
    abstract boolean ready(long nowNanos);

    /** Calls {@link #ready} until it holds or {@code timeout} passes (startup connect). */
    boolean awaitReady(java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready(System.nanoTime())) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /**
     * Changes whenever a new transport session starts (a TCP reconnect): templates must be sent
     * again and sequence numbers restart.
     */
    abstract int session();

    /**
     * Sends one whole message. On failure the message is lost; TCP then reconnects. TCP waits at
     * most {@link IpfixExporterOptions#writeTimeout()} for the collector to take it.
     */
    abstract void send(ByteBuffer message) throws IOException;

    /** Successful TCP connections after the first (0 for UDP). */
    abstract long reconnects();

    /** Whether a message can be sent now, without a connection step (for metrics). */
    abstract boolean connected();

    /** TCP connections dropped because the collector took nothing for the write timeout. */
    long writeTimeouts() {
        return 0;
    }

    /**
     * Makes a send that is waiting for the collector give up now, and every later one at once; safe
     * from any thread. For an owner that is closing and will not wait for the collector.
     */
    void abortSend() {}

    @Override
    public abstract void close();

    /** Connected UDP: ICMP port-unreachable surfaces as an exception on a later send. */
    static final class Udp extends IpfixTransport {
        private final DatagramChannel channel;

        Udp(InetSocketAddress address, IpfixExporterOptions options) throws IOException {
            DatagramChannel ch = DatagramChannel.open();
            try {
                if (options.sendBufferBytes() > 0) {
                    ch.setOption(StandardSocketOptions.SO_SNDBUF, options.sendBufferBytes());
                }
                ch.connect(address);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            this.channel = ch;
        }

        @Override
        boolean ready(long nowNanos) {
            return true;
        }

        @Override
        int session() {
            return 0;
        }

        @Override
        void send(ByteBuffer message) throws IOException {
            channel.write(message);
        }

        @Override
        long reconnects() {
            return 0;
        }

        @Override
        boolean connected() {
            return channel.isOpen();
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Closing a datagram channel has nothing to flush.
            }
        }
    }

    /**
     * TCP, non-blocking throughout: connects step by step with exponential backoff, and a message
     * the collector does not take within the write timeout drops the connection (a half-written
     * message would corrupt the stream, so the session ends there). A collector that accepts and
     * never reads therefore costs one write timeout per connection, never a blocked caller.
     */
    static final class Tcp extends IpfixTransport {
        private final InetSocketAddress address;
        private final IpfixExporterOptions options;
        private final Selector selector;
        private SocketChannel channel;
        private SelectionKey key;
        private boolean connected;
        private int session;
        private volatile long connects;
        private long nextAttemptNanos;
        private long backoffNanos;
        private volatile long writeTimeouts;
        private volatile boolean aborted;
        private volatile boolean connectedNow;
        private boolean closed;

        Tcp(InetSocketAddress address, IpfixExporterOptions options) throws IOException {
            this.address = address;
            this.options = options;
            this.backoffNanos = options.reconnectBackoffMin().toNanos();
            this.selector = Selector.open();
        }

        @Override
        boolean ready(long nowNanos) {
            if (connected) {
                return true;
            }
            if (closed || aborted) {
                return false;
            }
            try {
                if (channel == null) {
                    if (nowNanos - nextAttemptNanos < 0) {
                        return false;
                    }
                    channel = SocketChannel.open();
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    if (options.sendBufferBytes() > 0) {
                        channel.setOption(
                                StandardSocketOptions.SO_SNDBUF, options.sendBufferBytes());
                    }
                    key = channel.register(selector, 0);
                    if (!channel.connect(address)) {
                        return false;
                    }
                } else if (!channel.finishConnect()) {
                    return false;
                }
                connected = true;
                connectedNow = true;
                session++;
                connects++;
                backoffNanos = options.reconnectBackoffMin().toNanos();
                return true;
            } catch (IOException e) {
                fail(nowNanos);
                return false;
            }
        }

        private void fail(long nowNanos) {
            closeChannel();
            nextAttemptNanos = nowNanos + backoffNanos;
            backoffNanos = Math.min(backoffNanos * 2, options.reconnectBackoffMax().toNanos());
        }

        @Override
        int session() {
            return session;
        }

        @Override
        void send(ByteBuffer message) throws IOException {
            if (!connected || aborted) {
                throw new IOException("not connected to " + address);
            }
            long deadline = System.nanoTime() + options.writeTimeout().toNanos();
            try {
                while (message.hasRemaining()) {
                    if (channel.write(message) > 0) {
                        continue;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || aborted) {
                        if (!aborted) {
                            writeTimeouts++;
                        }
                        throw new IOException(
                                (aborted
                                                ? "send aborted"
                                                : "write timed out after " + options.writeTimeout())
                                        + ": collector "
                                        + address
                                        + " is not reading");
                    }
                    key.interestOps(SelectionKey.OP_WRITE);
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    selector.selectedKeys().clear();
                    key.interestOps(0);
                }
            } catch (IOException e) {
                fail(System.nanoTime());
                throw e;
            }
        }

        @Override
        long reconnects() {
            return Math.max(0, connects - 1);
        }

        @Override
        long writeTimeouts() {
            return writeTimeouts;
        }

        @Override
        void abortSend() {
            aborted = true;
            selector.wakeup();
        }

        @Override
        boolean connected() {
            return connectedNow;
        }

        private void closeChannel() {
            connected = false;
            connectedNow = false;
            if (key != null) {
                key.cancel();
                key = null;
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // The connection is being abandoned anyway.
                }
                channel = null;
            }
        }

        @Override
        public void close() {
            closed = true;
            closeChannel();
            try {
                selector.close();
            } catch (IOException ignored) {
                // Nothing was pending on it.
            }
        }
    }
}
