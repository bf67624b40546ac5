// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * An ntopng stand-in for the tests: a SUB socket subscribed to ntopng's topics, drained all the
 * time by its own thread (as ntopng's collector loop does; a bound SUB that nobody polls never even
 * sends its subscriptions), keeping every two-frame message as {@link NtopngWireDecoder} reads it.
 */
final class ZmqTestSubscriber implements AutoCloseable {

    /** One received message. */
    record Message(NtopngWireDecoder.Header header, byte[] payload) {}

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

    /** Connects to a bound publisher (ntopng's {@code -i tcp://HOST:PORT}). */
    static ZmqTestSubscriber connect(String address) {
        return new ZmqTestSubscriber(address, false, null, null);
    }

    /** Binds as ntopng in collector mode does ({@code -i tcp://*:PORT c}). */
    static ZmqTestSubscriber bind(String address) {
        return new ZmqTestSubscriber(address, true, null, null);
    }

    /** Binds as a CURVE server (ntopng with an encryption key), collector mode. */
    static ZmqTestSubscriber bindCurveServer(String address, byte[] publicKey, byte[] secretKey) {
        return new ZmqTestSubscriber(address, true, publicKey, secretKey);
    }

    private ZmqTestSubscriber(String address, boolean bind, byte[] pub, byte[] sec) {
        thread = new Thread(() -> run(address, bind, pub, sec), "test-zmq-subscriber");
        thread.setDaemon(true);
        thread.start();
        try {
            if (!ready.await(10, TimeUnit.SECONDS)) {
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

    private void run(String address, boolean bind, byte[] pub, byte[] sec) {
        ZMQ.Socket socket = ctx.createSocket(SocketType.SUB);
        try {
            socket.setRcvHWM(1000);
            socket.setReceiveBufferSize(8 << 20);
            socket.setReceiveTimeOut(50);
            if (pub != null) {
                socket.setCurveServer(true);
                socket.setCurvePublicKey(pub);
                socket.setCurveSecretKey(sec);
            }
            for (String topic : NTOPNG_TOPICS) {
                socket.subscribe(topic);
            }
            if (bind) {
                socket.bind(address);
                String last = socket.getLastEndpoint();
                boundPort = Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
            } else {
                socket.connect(address);
            }
        } catch (RuntimeException e) {
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

    /** Stops reading from the socket (a subscriber that cannot keep up). */
    void stall() {
        drain = false;
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
