// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;
import org.zeromq.ZMonitor;

/**
 * An ntopng stand-in for the tests: a SUB socket subscribed to ntopng's topics, drained all the
 * time by its own thread (as ntopng's collector loop does; a bound SUB that nobody polls never even
 * sends its subscriptions), keeping every two-frame message as {@link NtopngWireDecoder} reads it.
 */
final class ZmqTestSubscriber implements AutoCloseable {

    /** One received message. */
    record Message(NtopngWireDecoder.Header header, byte[] payload) {}

    /**
     * CURVE keys of the subscriber: a server pair ({@code serverKey} null), or a client pair with
     * the publisher's public key.
     */
    record Curve(byte[] publicKey, byte[] secretKey, byte[] serverKey) {}

    private static final String[] NTOPNG_TOPICS = {
        "flow", "event", "counter", "template", "option", "hello", "listening-ports", "snmp-ifaces"
    };

    private final ZContext ctx = new ZContext(1);
    private final List<Message> messages = new ArrayList<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stop;
    private volatile boolean drain = true;
    private volatile int boundPort = -1;
    private volatile Throwable failure;
    private long flows;

    /**
     * How long the SUB waits for the peer's ZMTP greeting before it drops the connection and
     * reconnects. JeroMQ's I/O thread can miss the new connection's channel (the connecter's handle
     * and the engine's handle for the same channel swapped within one poll round), so the SUB never
     * sends its greeting: the TCP connection is up, the publisher's 10-byte greeting sits unread in
     * the SUB's receive queue and no subscription ever reaches the publisher. The default (30 s)
     * kept such a connection for as long as the publisher waited for a subscriber.
     */
    private static final int HANDSHAKE_IVL_MS = 1_000;

    /** Longest wait for a completed handshake in {@link #connect}. */
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(20);

    private static final AtomicInteger MONITORS = new AtomicInteger();

    /**
     * Connects to a bound publisher (ntopng's {@code -i tcp://HOST:PORT}) and returns once the ZMTP
     * handshake is done, that is once the subscriptions are on their way to the publisher.
     */
    static ZmqTestSubscriber connect(String address) {
        return new ZmqTestSubscriber(address, false, null, true);
    }

    /**
     * Connects as a CURVE client with its own key pair to a CURVE server publisher, waiting for the
     * handshake when {@code awaitHandshake} (it never completes for a refused client).
     */
    static ZmqTestSubscriber connectCurveClient(
            String address,
            ZMQ.Curve.KeyPair client,
            String serverPublicKey,
            boolean awaitHandshake) {
        return new ZmqTestSubscriber(
                address,
                false,
                new Curve(
                        ZMQ.Curve.z85Decode(client.publicKey),
                        ZMQ.Curve.z85Decode(client.secretKey),
                        ZMQ.Curve.z85Decode(serverPublicKey)),
                awaitHandshake);
    }

    /**
     * Connects without waiting for a handshake: the publisher is not bound yet (the SUB re-dials
     * until it is), or the handshake is meant to fail (plain SUB to a CURVE publisher).
     */
    static ZmqTestSubscriber connectUnverified(String address) {
        return new ZmqTestSubscriber(address, false, null, false);
    }

    /** Binds as ntopng in collector mode does ({@code -i tcp://*:PORT c}). */
    static ZmqTestSubscriber bind(String address) {
        return new ZmqTestSubscriber(address, true, null, false);
    }

    /** Binds as a CURVE server (ntopng with an encryption key), collector mode. */
    static ZmqTestSubscriber bindCurveServer(String address, byte[] publicKey, byte[] secretKey) {
        return new ZmqTestSubscriber(address, true, new Curve(publicKey, secretKey, null), false);
    }

    private ZmqTestSubscriber(String address, boolean bind, Curve curve, boolean awaitHandshake) {
        thread = new Thread(() -> run(address, bind, curve, awaitHandshake), "test-zmq-subscriber");
        thread.setDaemon(true);
        thread.start();
        try {
            if (!ready.await(HANDSHAKE_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
                throw new AssertionError("subscriber socket not ready");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (failure != null) {
            throw new AssertionError("subscriber failed", failure);
        }
    }

    private void run(String address, boolean bind, Curve curve, boolean awaitHandshake) {
        ZMQ.Socket socket = ctx.createSocket(SocketType.SUB);
        try {
            socket.setHandshakeIvl(HANDSHAKE_IVL_MS);
            socket.setRcvHWM(1000);
            socket.setReceiveBufferSize(8 << 20);
            socket.setReceiveTimeOut(50);
            if (curve != null && curve.serverKey() == null) {
                socket.setCurveServer(true);
                socket.setCurvePublicKey(curve.publicKey());
                socket.setCurveSecretKey(curve.secretKey());
            } else if (curve != null) {
                socket.setCurveServerKey(curve.serverKey());
                socket.setCurvePublicKey(curve.publicKey());
                socket.setCurveSecretKey(curve.secretKey());
            }
            for (String topic : NTOPNG_TOPICS) {
                socket.subscribe(topic);
            }
            if (bind) {
                socket.bind(address);
                String last = socket.getLastEndpoint();
                boundPort = Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
            } else if (awaitHandshake) {
                connectAndAwaitHandshake(socket, address);
            } else {
                socket.connect(address);
            }
        } catch (RuntimeException | AssertionError e) {
            failure = e;
            return;
        } finally {
            ready.countDown();
        }
        try {
            while (!stop) {
                if (!drain) {
                    // A stalled ntopng: read nothing; ZMQ fills the receive HWM, then TCP.
                    Thread.sleep(5);
                    continue;
                }
                byte[] first = socket.recv();
                if (first == null) {
                    continue;
                }
                if (!socket.hasReceiveMore()) {
                    throw new AssertionError("single-frame message of " + first.length + " bytes");
                }
                byte[] second = socket.recv();
                if (socket.hasReceiveMore()) {
                    throw new AssertionError("more than two frames");
                }
                Message m = new Message(NtopngWireDecoder.header(first), second);
                int n = m.header().url().equals("flow") ? NtopngWireDecoder.tlv(second).size() : 0;
                synchronized (messages) {
                    flows += n;
                    messages.add(m);
                    messages.notifyAll();
                }
            }
        } catch (RuntimeException | AssertionError | InterruptedException e) {
            failure = e;
        }
    }

    /**
     * Connects and waits for the end of a ZMTP handshake, so that the subscriptions (which SUB
     * sends right after it) are on the wire when {@link #connect} returns, instead of the publisher
     * waiting blind for them. A stalled handshake is dropped after {@link #HANDSHAKE_IVL_MS} and
     * the SUB reconnects on its own.
     */
    private void connectAndAwaitHandshake(ZMQ.Socket socket, String address) {
        String monitorAddress =
                "inproc://test-zmq-subscriber-monitor-" + MONITORS.incrementAndGet();
        socket.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL);
        // Left open until close() (ctx.close() closes it): stopping the monitor right here made
        // JeroMQ's I/O thread print ClosedChannelExceptions in a stress loop.
        ZMQ.Socket monitor = ctx.createSocket(SocketType.PAIR);
        monitor.setReceiveTimeOut(100);
        monitor.connect(monitorAddress);
        socket.connect(address);
        long deadline = System.nanoTime() + HANDSHAKE_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            ZEvent event = ZEvent.recv(monitor);
            if (event != null && event.getEvent() == ZMonitor.Event.HANDSHAKE_PROTOCOL) {
                return;
            }
        }
        throw new AssertionError("no ZMTP handshake with " + address + " in " + HANDSHAKE_TIMEOUT);
    }

    /** Stops reading from the socket (a subscriber that cannot keep up). */
    void stall() {
        drain = false;
    }

    /** Reads again after {@link #stall()}. */
    void resume() {
        drain = true;
    }

    /** The port bound by {@link #bind} with a wildcard port. */
    int boundPort() {
        return boundPort;
    }

    /**
     * Waits until {@code done} holds for the messages so far, or {@code timeout} passes.
     *
     * @return a copy of all messages received since this subscriber was created
     */
    List<Message> receiveUntil(Predicate<List<Message>> done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (messages) {
            while (!done.test(messages) && System.nanoTime() - deadline < 0 && failure == null) {
                messages.wait(20);
            }
            if (failure != null) {
                throw new AssertionError("subscriber failed", failure);
            }
            return new ArrayList<>(messages);
        }
    }

    /** Receives for a fixed time (used to show that nothing arrives). */
    List<Message> receiveFor(Duration time) throws InterruptedException {
        return receiveUntil(m -> false, time);
    }

    /** Flows in the flow messages received so far. */
    long flowsReceived() {
        synchronized (messages) {
            return flows;
        }
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ctx.close();
    }
}
