// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;

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

    /** Sends one whole message. On failure the message is lost; TCP then reconnects. */
    abstract void send(ByteBuffer message) throws IOException;

    /** Successful TCP connections after the first (0 for UDP). */
    abstract long reconnects();

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
        public void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Closing a datagram channel has nothing to flush.
            }
        }
    }

    /** TCP with non-blocking connects and exponential backoff; blocking writes once connected. */
    static final class Tcp extends IpfixTransport {
        private final InetSocketAddress address;
        private final IpfixExporterOptions options;
        private SocketChannel channel;
        private boolean connected;
        private int session;
        private long connects;
        private long nextAttemptNanos;
        private long backoffNanos;

        Tcp(InetSocketAddress address, IpfixExporterOptions options) {
            this.address = address;
            this.options = options;
            this.backoffNanos = options.reconnectBackoffMin().toNanos();
        }

        @Override
        boolean ready(long nowNanos) {
            if (connected) {
                return true;
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
                    if (!channel.connect(address)) {
                        return false;
                    }
                } else if (!channel.finishConnect()) {
                    return false;
                }
                channel.configureBlocking(true);
                connected = true;
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
            if (!connected) {
                throw new IOException("not connected to " + address);
            }
            try {
                while (message.hasRemaining()) {
                    channel.write(message);
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

        private void closeChannel() {
            connected = false;
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
            closeChannel();
        }
    }
}
