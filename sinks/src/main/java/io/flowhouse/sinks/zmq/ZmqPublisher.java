// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.FlowContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * Publishes flows to ntopng the way nProbe does: a ZeroMQ publisher (XPUB, which SUB peers accept
 * like PUB) sending two-frame messages, a 36-byte {@link ZmqMessageHeader} and an nDPI TLV payload
 * of many flows ({@link TlvFlowEncoder}), kept under {@link ZmqSinkOptions#maxMessageBytes()}.
 * Every second or so it also sends an {@code event} message with the active/idle timeouts and its
 * counters, and now and then a {@code template} message describing the fields. Flows published with
 * their context carry its AS numbers, and the interface names it gives go out per exporter on the
 * {@code snmp-ifaces} topic ({@link SnmpInterfaces}) with the next event after they change and
 * every {@link ZmqSinkOptions#interfacesInterval()}.
 *
 * <p>Threads: callers ({@link #publish}) put flows into a bounded queue; one socket thread owns the
 * ZMQ context and socket, encodes, batches and sends, so {@code msg_id} is strictly +1 per message
 * of this source. When the queue is full, {@link ZmqSinkOptions.Overflow#DROP} counts and drops the
 * flow, {@link ZmqSinkOptions.Overflow#BLOCK} waits.
 *
 * <p>Slow subscribers ({@link ZmqSinkOptions#slowSubscriber()}): by default a subscriber whose
 * {@code send-hwm} messages are queued loses the next messages itself, as with PUB: the socket
 * thread never waits, other subscribers get everything, and the subscriber sees the loss as a
 * {@code msg_id} gap (ntopng counts it as ZMQ drops; ZMQ tells the publisher nothing). With {@code
 * wait} the socket runs with {@code ZMQ_XPUB_NODROP}: a subscriber that cannot keep up stalls the
 * socket thread (and every other subscriber), which fills the queue, which the overflow policy then
 * handles and counts. (With no subscriber at all, PUB semantics apply: messages go nowhere; {@code
 * await-subscriber} can hold the first one.)
 *
 * <p>CURVE server mode runs a {@link ZapHandler} in the socket's context, admitting only the
 * clients on the allow-list.
 *
 * <p>A failure of the socket thread is stored and rethrown by the next {@link #publish} or {@link
 * #flush} call. Owns its socket: close it.
 */
public final class ZmqPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZmqPublisher.class);

    /**
     * How long a send refused by a full subscriber ({@code slow-subscriber=wait} only) waits before
     * the socket thread looks at its other duties and tries again.
     */
    private static final int SEND_TIMEOUT_MS = 50;

    /** Longest a flow queue poll waits, so timers are looked at often enough. */
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final int DRAIN_CHUNK = 4096;

    /** How long the closing socket keeps delivering messages already handed to ZMQ. */
    private static final int CLOSE_LINGER_MS = 2_000;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How long a new connection may take to exchange ZMTP greetings before it is dropped (and, in
     * connect mode, re-dialled). JeroMQ's default is 30 s; its I/O thread can lose a just-connected
     * channel (connecter and engine handles for the same channel in one poll round), and such a
     * connection then hangs silently until this timer fires. A greeting is one round trip.
     */
    private static final int HANDSHAKE_IVL_MS = 5_000;

    private final ZmqSinkOptions options;
    private final long sourceId;
    private final String uuid = UUID.randomUUID().toString();
    private final ArrayBlockingQueue<Queued> queue;
    private final SnmpInterfaces interfaces;
    private final Thread thread;
    private final CountDownLatch started = new CountDownLatch(1);
    private final Object progress = new Object();

    private volatile Throwable failure;
    private volatile boolean closing;
    private volatile boolean abort;
    private volatile boolean flushRequested;
    private volatile int boundPort = -1;
    private volatile ZapHandler zap;

    private final AtomicLong flowsOffered = new AtomicLong();
    private final AtomicLong flowsQueued = new AtomicLong();
    private final AtomicLong flowsDropped = new AtomicLong();
    private final AtomicLong flowsHandled = new AtomicLong();
    private final AtomicLong flowsSent = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong templatesSent = new AtomicLong();
    private final AtomicLong subscriptions = new AtomicLong();
    private final AtomicLong interfaceMessagesSent = new AtomicLong();
    private final AtomicLong interfacesRefused = new AtomicLong();
    private final AtomicLong interfacesCut = new AtomicLong();

    /** A flow and its context (null: none) on their way to the socket thread. */
    private record Queued(FlowRecord flow, FlowContext context) {}

    /**
     * A snapshot of the publisher's counters.
     *
     * @param flowsOffered flows given to {@link #publish}
     * @param flowsDropped flows dropped because the queue was full, or unsent at close
     * @param flowsSent flows handed to the ZMQ socket
     * @param messagesSent flow messages sent (not counting events and templates)
     * @param bytesSent bytes of all frames sent, headers included
     * @param eventsSent {@code event} messages sent
     * @param templatesSent {@code template} messages sent
     * @param subscriptions subscribe minus unsubscribe requests seen from subscribers
     * @param queueDepth flows waiting for the socket thread
     * @param lastMsgId the last msg_id used, -1 before the first message
     * @param curveAccepted CURVE clients admitted by the allow-list (server mode)
     * @param curveRefused CURVE clients refused by the allow-list (server mode)
     * @param interfaceMessagesSent {@code snmp-ifaces} messages sent
     * @param interfacesRefused interface names not kept (past the exporter or interface bound)
     * @param interfacesCut interfaces left out of an {@code snmp-ifaces} message that was full
     */
    public record Metrics(
            long flowsOffered,
            long flowsDropped,
            long flowsSent,
            long messagesSent,
            long bytesSent,
            long eventsSent,
            long templatesSent,
            long subscriptions,
            int queueDepth,
            long lastMsgId,
            long curveAccepted,
            long curveRefused,
            long interfaceMessagesSent,
            long interfacesRefused,
            long interfacesCut) {}

    // Socket thread state.
    private long nextMsgId;
    private long flowOctets;
    private long flowPackets;
    private volatile long lastMsgId = -1;

    /**
     * Opens the socket (bind or connect) on its own thread and returns once it is ready.
     *
     * @param sourceId the header's source_id, usually {@code options.sourceId() + subtask}
     * @throws IOException if the endpoint cannot be bound/connected or a key file is bad
     */
    public ZmqPublisher(ZmqSinkOptions options, long sourceId) throws IOException {
        this.options = options;
        this.sourceId = sourceId & 0xffff_ffffL;
        this.queue = new ArrayBlockingQueue<>(options.queueCapacity());
        this.interfaces =
                new SnmpInterfaces(
                        options.interfacesMaxExporters(), options.interfacesMaxPerExporter());
        this.thread = new Thread(this::run, "flowhouse-zmq-" + this.sourceId);
        thread.setDaemon(true);
        thread.start();
        try {
            if (!started.await(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                throw new IOException(
                        "zmq socket for " + options.endpoint() + " not ready in " + START_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while opening " + options.endpoint(), e);
        }
        Throwable t = failure;
        if (t != null) {
            close();
            throw new IOException("cannot open zmq endpoint " + options.endpoint(), t);
        }
    }

    /** The TCP port bound in bind mode (useful with port 0 / {@code *}); -1 otherwise. */
    public int boundPort() {
        return boundPort;
    }

    /** The header's source id. */
    public long sourceId() {
        return sourceId;
    }

    /**
     * Queues one flow. Never blocks in DROP mode; in BLOCK mode waits for room.
     *
     * @return false if the flow was dropped (queue full)
     * @throws IOException if the socket thread has failed or the publisher is closed
     */
    public boolean publish(FlowRecord flow) throws IOException, InterruptedException {
        return publish(flow, null);
    }

    /**
     * Queues one flow with its context: the context's AS numbers are sent, and the names it gives
     * the flow's interfaces go out on the {@code snmp-ifaces} topic.
     *
     * @param context null: the flow as it is
     * @return false if the flow was dropped (queue full)
     * @throws IOException if the socket thread has failed or the publisher is closed
     */
    public boolean publish(FlowRecord flow, FlowContext context)
            throws IOException, InterruptedException {
        checkFailure();
        Queued q = new Queued(flow, context);
        flowsOffered.incrementAndGet();
        if (options.overflow() == ZmqSinkOptions.Overflow.DROP) {
            if (!queue.offer(q)) {
                flowsDropped.incrementAndGet();
                return false;
            }
        } else {
            while (!queue.offer(q, 100, TimeUnit.MILLISECONDS)) {
                checkFailure();
            }
        }
        flowsQueued.incrementAndGet();
        return true;
    }

    /**
     * Sends what is queued, including a partly filled message, and waits until the socket has taken
     * every flow queued before this call.
     *
     * @throws IOException if the socket thread failed or the wait timed out
     */
    public void flush(Duration timeout) throws IOException, InterruptedException {
        long target = flowsQueued.get();
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while (flowsHandled.get() < target) {
                checkFailure();
                flushRequested = true;
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException(
                            "zmq flush timed out after "
                                    + timeout
                                    + " with "
                                    + (target - flowsHandled.get())
                                    + " flows unsent");
                }
                progress.wait(Math.max(1, Math.min(20, TimeUnit.NANOSECONDS.toMillis(left))));
            }
        }
        checkFailure();
    }

    /** True when the socket thread has failed (the publisher is unusable). */
    public boolean failed() {
        return failure != null;
    }

    /** Current counters. */
    public Metrics metrics() {
        return new Metrics(
                flowsOffered.get(),
                flowsDropped.get(),
                flowsSent.get(),
                messagesSent.get(),
                bytesSent.get(),
                eventsSent.get(),
                templatesSent.get(),
                subscriptions.get(),
                queue.size(),
                lastMsgId,
                zap == null ? 0 : zap.accepted(),
                zap == null ? 0 : zap.refused(),
                interfaceMessagesSent.get(),
                interfacesRefused.get(),
                interfacesCut.get());
    }

    /** Sends what is queued (waiting up to 10 s), then closes the socket. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * Drains the queue for at most {@code budget}, then drops (and counts) what is left and closes
     * the socket.
     */
    public void close(Duration budget) {
        closing = true;
        try {
            thread.join(Math.max(1, budget.toMillis()));
            if (thread.isAlive()) {
                abort = true;
                thread.join(5_000);
            }
        } catch (InterruptedException e) {
            abort = true;
            Thread.currentThread().interrupt();
        }
        int left = queue.size();
        if (left > 0) {
            queue.clear();
            flowsDropped.addAndGet(left);
        }
    }

    private void checkFailure() throws IOException {
        Throwable t = failure;
        if (t != null) {
            throw new IOException("zmq publisher for " + options.endpoint() + " failed", t);
        }
        if (closing) {
            throw new IOException("zmq publisher for " + options.endpoint() + " is closed");
        }
    }

    // ---------------------------------------------------------------- socket thread

    private void run() {
        try (ZContext ctx = new ZContext(1)) {
            ZMQ.Socket socket = ctx.createSocket(SocketType.XPUB);
            try {
                if (options.curveServer()) {
                    // Bound before the publisher, so no client is ever handshaken without it.
                    zap =
                            ZapHandler.start(
                                    ctx,
                                    CurveAllowList.load(options.curveAllowedClientsFile()),
                                    "flowhouse-zmq-zap-" + sourceId);
                }
                configure(socket);
                open(socket);
            } catch (RuntimeException | IOException e) {
                failure = e;
                stopZap();
                return;
            } finally {
                started.countDown();
            }
            boolean regular = loop(socket);
            // Let ZMQ deliver what is already in the pipes before the context closes.
            // ZContext.close() sets every socket's linger to the context's (default 0) before
            // closing it, so a linger set on the socket alone would be overwritten.
            ctx.setLinger(regular ? CLOSE_LINGER_MS : 0);
            // The publishing socket goes first: without the handler JeroMQ admits every client.
            socket.setLinger(regular ? CLOSE_LINGER_MS : 0);
            socket.close();
            stopZap();
        } catch (RuntimeException | Error e) {
            LOG.error("zmq publisher thread for {} failed", options.endpoint(), e);
            failure = e;
        } finally {
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    private void stopZap() {
        ZapHandler z = zap;
        if (z != null) {
            z.close();
        }
    }

    private void configure(ZMQ.Socket socket) throws IOException {
        socket.setSndHWM(options.sendHwm());
        socket.setXpubNoDrop(options.slowSubscriber() == ZmqSinkOptions.SlowSubscriber.WAIT);
        socket.setSendTimeOut(SEND_TIMEOUT_MS);
        socket.setLinger(0);
        socket.setHandshakeIvl(HANDSHAKE_IVL_MS);
        socket.setTCPKeepAlive(1);
        if (options.curveEnabled()) {
            if (options.curveServerPublicKeyFile() != null) {
                // nProbe's role: ntopng holds the server key, the probe is a CURVE client.
                socket.setCurveServerKey(
                        ZmqCurveKeys.readPublic(options.curveServerPublicKeyFile()));
                byte[] pub;
                byte[] sec;
                if (options.curvePublicKeyFile() != null) {
                    pub = ZmqCurveKeys.readPublic(options.curvePublicKeyFile());
                    sec = ZmqCurveKeys.readSecret(options.curveSecretKeyFile());
                } else {
                    ZMQ.Curve.KeyPair pair = ZMQ.Curve.generateKeyPair();
                    pub = ZMQ.Curve.z85Decode(pair.publicKey);
                    sec = ZMQ.Curve.z85Decode(pair.secretKey);
                }
                socket.setCurvePublicKey(pub);
                socket.setCurveSecretKey(sec);
            } else {
                socket.setZAPDomain("flowhouse");
                socket.setCurveServer(true);
                socket.setCurvePublicKey(ZmqCurveKeys.readPublic(options.curvePublicKeyFile()));
                socket.setCurveSecretKey(ZmqCurveKeys.readSecret(options.curveSecretKeyFile()));
            }
        }
    }

    private void open(ZMQ.Socket socket) {
        String address = options.zmqAddress();
        if (options.connectMode()) {
            socket.connect(address);
            LOG.info("zmq publisher {} connecting to collector {}", sourceId, address);
        } else {
            socket.bind(address);
            String last = socket.getLastEndpoint();
            if (last != null && last.startsWith("tcp://")) {
                boundPort = Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
            }
            LOG.info("zmq publisher {} bound to {}", sourceId, last);
        }
    }

    /** Runs until closed; true after a regular close (what is queued in ZMQ should go out). */
    private boolean loop(ZMQ.Socket socket) {
        long lingerNanos = options.linger().toNanos();
        long eventNanos = options.eventInterval().toNanos();
        long templateNanos = options.templateInterval().toNanos();
        long interfacesNanos = options.interfacesInterval().toNanos();
        awaitSubscriber(socket);
        long now = System.nanoTime();
        sendTemplate(socket);
        long nextTemplate = now + templateNanos;
        long nextEvent = now + eventNanos;
        long nextInterfaces = now + interfacesNanos;
        EventWindow window = new EventWindow(now, 0, 0);

        byte[] payload = new byte[options.maxMessageBytes()];
        int len = 0;
        int flows = 0;
        long batchStart = 0;
        List<Queued> chunk = new ArrayList<>(DRAIN_CHUNK);
        byte[] header = new byte[ZmqMessageHeader.SIZE];

        while (!abort) {
            ZapHandler z = zap;
            if (z != null && z.failure() != null) {
                // Without its handler JeroMQ would admit every client: stop publishing.
                throw new IllegalStateException(
                        "zmq curve authentication handler failed", z.failure());
            }
            drainSubscriptions(socket);
            now = System.nanoTime();
            if (now - nextEvent >= 0) {
                window = sendEvent(socket, window, now);
                nextEvent = now + eventNanos;
                if (now - nextInterfaces >= 0) {
                    sendInterfaces(socket, interfaces.allMessages(options.maxMessageBytes()));
                    nextInterfaces = now + interfacesNanos;
                } else if (interfaces.hasChanges()) {
                    sendInterfaces(socket, interfaces.changedMessages(options.maxMessageBytes()));
                }
            }
            if (now - nextTemplate >= 0) {
                sendTemplate(socket);
                nextTemplate = now + templateNanos;
            }
            long wait = Math.min(MAX_POLL_NANOS, Math.max(0, nextEvent - now));
            if (flows > 0) {
                wait = Math.min(wait, Math.max(0, batchStart + lingerNanos - now));
            }
            Queued first = null;
            try {
                first = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : queue.poll();
            } catch (InterruptedException e) {
                abort = true;
                break;
            }
            if (first != null) {
                chunk.add(first);
                queue.drainTo(chunk, DRAIN_CHUNK - 1);
                for (int i = 0; i < chunk.size(); i++) {
                    if (len + TlvFlowEncoder.MAX_RECORD_BYTES > payload.length && flows > 0) {
                        sendFlows(socket, header, payload, len, flows);
                        len = 0;
                        flows = 0;
                    }
                    if (flows == 0) {
                        len = TlvFlowEncoder.writeBufferHeader(payload, 0);
                        batchStart = System.nanoTime();
                    }
                    FlowRecord f = withContextAs(chunk.get(i));
                    interfaces.learn(f, chunk.get(i).context());
                    len = TlvFlowEncoder.encode(f, payload, len);
                    flows++;
                    flowOctets += f.bytes() + f.reverseBytes();
                    flowPackets += f.packets() + f.reversePackets();
                }
                chunk.clear();
                interfacesRefused.set(interfaces.refused());
            }
            boolean drained = queue.isEmpty();
            if (flows > 0
                    && (System.nanoTime() - batchStart >= lingerNanos
                            || (drained && (flushRequested || closing)))) {
                sendFlows(socket, header, payload, len, flows);
                len = 0;
                flows = 0;
            }
            if (drained && flows == 0) {
                flushRequested = false;
                if (closing) {
                    break;
                }
            }
        }
        if (flows > 0) {
            flowsDropped.addAndGet(flows);
            markHandled(flows);
        }
        if (!abort) {
            if (interfaces.hasChanges()) {
                sendInterfaces(socket, interfaces.changedMessages(options.maxMessageBytes()));
            }
            sendEvent(socket, window, System.nanoTime());
        }
        return !abort;
    }

    private void awaitSubscriber(ZMQ.Socket socket) {
        long deadline = System.nanoTime() + options.awaitSubscriber().toNanos();
        while (subscriptions.get() <= 0 && System.nanoTime() - deadline < 0 && !abort) {
            byte[] sub = socket.recv(ZMQ.DONTWAIT);
            if (sub != null) {
                countSubscription(sub);
            } else if (closing) {
                return;
            } else {
                sleepQuietly();
            }
        }
        if (subscriptions.get() <= 0 && !options.awaitSubscriber().isZero() && !abort && !closing) {
            LOG.warn(
                    "zmq publisher {} on {}: no subscriber after {}; publishing anyway, messages"
                            + " go nowhere until one subscribes",
                    sourceId,
                    options.endpoint(),
                    options.awaitSubscriber());
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void drainSubscriptions(ZMQ.Socket socket) {
        byte[] sub;
        while ((sub = socket.recv(ZMQ.DONTWAIT)) != null) {
            countSubscription(sub);
        }
    }

    private void countSubscription(byte[] sub) {
        if (sub.length > 0 && sub[0] == 1) {
            subscriptions.incrementAndGet();
        } else if (sub.length > 0 && sub[0] == 0) {
            subscriptions.decrementAndGet();
        }
    }

    private void sendFlows(ZMQ.Socket socket, byte[] header, byte[] payload, int len, int flows) {
        if (send(socket, header, "flow", ZmqMessageHeader.FLAG_TLV, payload, len)) {
            messagesSent.incrementAndGet();
            flowsSent.addAndGet(flows);
        } else {
            flowsDropped.addAndGet(flows);
        }
        markHandled(flows);
    }

    /** The flow with its context's AS numbers, where they differ. */
    private static FlowRecord withContextAs(Queued q) {
        FlowRecord f = q.flow();
        FlowContext c = q.context();
        if (c == null || (f.srcAs() == c.srcAs() && f.dstAs() == c.dstAs())) {
            return f;
        }
        return f.toBuilder().srcAs(c.srcAs()).dstAs(c.dstAs()).build();
    }

    private void sendInterfaces(ZMQ.Socket socket, List<byte[]> messages) {
        for (byte[] body : messages) {
            if (send(
                    socket,
                    new byte[ZmqMessageHeader.SIZE],
                    SnmpInterfaces.TOPIC,
                    0,
                    body,
                    body.length)) {
                interfaceMessagesSent.incrementAndGet();
            }
        }
        interfacesRefused.set(interfaces.refused());
        interfacesCut.set(interfaces.cut());
    }

    private void markHandled(int flows) {
        flowsHandled.addAndGet(flows);
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    private void sendTemplate(ZMQ.Socket socket) {
        byte[] body = ZmqJsonMessages.template();
        if (send(socket, new byte[ZmqMessageHeader.SIZE], "template", 0, body, body.length)) {
            templatesSent.incrementAndGet();
        }
    }

    private record EventWindow(long startNanos, long octets, long packets) {}

    private EventWindow sendEvent(ZMQ.Socket socket, EventWindow window, long now) {
        long octets = flowOctets;
        long packets = flowPackets;
        double seconds = Math.max(1e-3, (now - window.startNanos()) / 1e9);
        ZmqJsonMessages.EventStats stats =
                new ZmqJsonMessages.EventStats(
                        System.currentTimeMillis() / 1000,
                        flowsSent.get(),
                        octets,
                        packets,
                        flowsDropped.get(),
                        (long) ((octets - window.octets()) * 8 / seconds),
                        (long) ((packets - window.packets()) / seconds));
        byte[] body = ZmqJsonMessages.event(options, sourceId, uuid, stats);
        if (send(socket, new byte[ZmqMessageHeader.SIZE], "event", 0, body, body.length)) {
            eventsSent.incrementAndGet();
        }
        return new EventWindow(now, octets, packets);
    }

    /**
     * Sends header + payload, retrying while the subscriber's pipe is full; gives up only when the
     * publisher is being aborted.
     */
    private boolean send(
            ZMQ.Socket socket, byte[] header, String topic, int flags, byte[] body, int len) {
        ZmqMessageHeader.write(header, topic, flags, len, nextMsgId, sourceId);
        try {
            // send(byte[], off, len, flags) copies; send(byte[]) would queue the array itself, and
            // the header array is reused for the next message.
            while (!socket.send(header, 0, ZmqMessageHeader.SIZE, ZMQ.SNDMORE)) {
                if (abort) {
                    return false;
                }
                drainSubscriptions(socket);
            }
            // The second frame of a started message is never refused for HWM reasons.
            while (!socket.send(body, 0, len, 0)) {
                if (abort) {
                    return false;
                }
            }
        } catch (ZMQException e) {
            throw new IllegalStateException("zmq send on " + options.endpoint() + " failed", e);
        }
        lastMsgId = nextMsgId;
        nextMsgId = (nextMsgId + 1) & 0xffff_ffffL;
        bytesSent.addAndGet(ZmqMessageHeader.SIZE + len);
        return true;
    }
}
