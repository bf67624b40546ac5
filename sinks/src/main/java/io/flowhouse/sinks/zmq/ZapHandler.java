// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The ZAP handler (ZeroMQ RFC 27) of a CURVE server publisher: a REP socket on {@value #ENDPOINT}
 * in the publisher's context, answering each new connection's authentication request with 200 when
 * the client's long-term public key is on the {@link CurveAllowList}, else 400. Without a handler
 * JeroMQ's CURVE server admits every client that knows the server's public key.
 *
 * <p>Its own thread, started by {@link #start} and stopped by {@link #close} after the publishing
 * socket has been closed (while the handler is gone, JeroMQ would admit every client).
 */
final class ZapHandler implements AutoCloseable {

    /** Where ZeroMQ sends authentication requests (RFC 27). */
    static final String ENDPOINT = "inproc://zeromq.zap.01";

    private static final Logger LOG = LoggerFactory.getLogger(ZapHandler.class);
    private static final int POLL_MS = 100;

    private final ZMQ.Socket socket;
    private final CurveAllowList allowList;
    private final Thread thread;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean stop;
    private volatile Throwable failure;

    private ZapHandler(ZMQ.Socket socket, CurveAllowList allowList, String name) {
        this.socket = socket;
        this.allowList = allowList;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    /**
     * Binds the handler in {@code ctx} (before the publisher binds, so no connection is ever
     * handshaken without it) and starts its thread.
     */
    static ZapHandler start(ZContext ctx, CurveAllowList allowList, String name) {
        ZMQ.Socket socket = ctx.createSocket(SocketType.REP);
        socket.setLinger(0);
        socket.setReceiveTimeOut(POLL_MS);
        socket.bind(ENDPOINT);
        ZapHandler handler = new ZapHandler(socket, allowList, name);
        handler.thread.start();
        return handler;
    }

    /** Clients admitted so far. */
    long accepted() {
        return accepted.get();
    }

    /** Clients refused so far (key not on the list, or not CURVE). */
    long refused() {
        return refused.get();
    }

    /** The failure that stopped the handler, or null while it runs. */
    Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            while (!stop) {
                byte[] version = socket.recv();
                if (version == null) {
                    continue;
                }
                byte[][] frames = new byte[7][];
                frames[0] = version;
                int n = 1;
                while (socket.hasReceiveMore()) {
                    byte[] f = socket.recv();
                    if (n < frames.length) {
                        frames[n] = f;
                    }
                    n++;
                }
                answer(frames, n);
            }
        } catch (RuntimeException e) {
            if (!stop) {
                failure = e;
                LOG.error("zmq curve authentication handler failed", e);
            }
        }
    }

    /**
     * Answers one request: version, request id, domain, address, identity, mechanism, credentials
     * (for CURVE the client's 32-byte public key).
     */
    private void answer(byte[][] f, int count) {
        byte[] requestId = f[1] == null ? new byte[0] : f[1];
        String mechanism = f[5] == null ? "" : new String(f[5], StandardCharsets.US_ASCII);
        String address = f[3] == null ? "?" : new String(f[3], StandardCharsets.US_ASCII);
        boolean wellFormed = count == 7 && "1.0".equals(ascii(f[0]));
        boolean ok = wellFormed && "CURVE".equals(mechanism) && allowList.allows(f[6]);
        String status;
        if (ok) {
            accepted.incrementAndGet();
            status = "200";
        } else {
            long n = refused.incrementAndGet();
            status = "400";
            if (n <= 10 || n % 1000 == 0) {
                LOG.warn(
                        "zmq: refused {} client from {}: {} ({} refused so far; allow-list {})",
                        mechanism.isEmpty() ? "a" : mechanism,
                        address,
                        wellFormed ? "public key not on the allow-list" : "malformed request",
                        n,
                        allowList.file());
            }
        }
        socket.sendMore("1.0");
        socket.sendMore(requestId);
        socket.sendMore(status);
        socket.sendMore(ok ? "OK" : "client key not allowed");
        socket.sendMore(ok ? ZMQ.Curve.z85Encode(f[6]) : "");
        socket.send(new byte[0], 0);
    }

    private static String ascii(byte[] b) {
        return b == null ? "" : new String(b, StandardCharsets.US_ASCII);
    }

    /** Stops the thread and closes the socket. */
    @Override
    public void close() {
        stop = true;
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            socket.close();
        }
    }
}
