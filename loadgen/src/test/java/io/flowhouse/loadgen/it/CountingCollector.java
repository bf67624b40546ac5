// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.HashSet;
import java.util.Set;

/**
 * A plain Java UDP collector on loopback: receives on its own thread, decodes every datagram with
 * the codec and counts. Stops when closed.
 */
final class CountingCollector implements AutoCloseable {
    private final DatagramChannel channel;
    private final Thread thread;
    private final NetflowDecoder decoder = new NetflowDecoder();
    private final InMemoryTemplateCache cache = new InMemoryTemplateCache();
    private final Set<InetSocketAddress> sources = new HashSet<>();
    private volatile long datagrams;
    private volatile long malformed;
    private volatile long records;
    private volatile long packets;
    private volatile long bytes;
    private volatile long samplingRate = -1;
    private volatile boolean running = true;

    /** Past every header a replay pool rewrites (sFlow's IPv4 datagram header is 28 bytes). */
    private static final int BODY_OFFSET = 28;

    private final Set<Integer> bodies = new HashSet<>();

    CountingCollector(String bindAddress) throws IOException {
        channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        channel.bind(new InetSocketAddress(bindAddress, 0));
        thread = new Thread(this::loop, "counting-collector");
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    private void loop() {
        ByteBuffer buf = ByteBuffer.allocate(65_536);
        while (running) {
            try {
                buf.clear();
                InetSocketAddress from = (InetSocketAddress) channel.receive(buf);
                buf.flip();
                synchronized (this) {
                    count(from, buf);
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void count(InetSocketAddress from, ByteBuffer buf) {
        datagrams++;
        sources.add(from);
        if (buf.remaining() > BODY_OFFSET) {
            byte[] body = new byte[buf.remaining() - BODY_OFFSET];
            buf.get(BODY_OFFSET, body);
            bodies.add(java.util.Arrays.hashCode(body));
        }
        ExporterKey key = new ExporterKey(IpAddress.of(from.getAddress()), from.getPort());
        try {
            DecodeResult r = decoder.decode(buf, new DecodeContext(key, 0), cache);
            if (r.records().isEmpty() && !r.problems().isEmpty()) {
                malformed++;
                return;
            }
            records += r.records().size();
            for (FlowRecord f : r.records()) {
                packets += f.packets();
                bytes += f.bytes();
                samplingRate = f.samplingRate();
            }
        } catch (DecodeException e) {
            malformed++;
        }
    }

    synchronized long datagrams() {
        return datagrams;
    }

    synchronized long malformed() {
        return malformed;
    }

    synchronized long records() {
        return records;
    }

    synchronized long packets() {
        return packets;
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized long samplingRate() {
        return samplingRate;
    }

    /** Distinct datagram contents after the headers (a replay pool repeats its datagrams). */
    synchronized int distinctBodies() {
        return bodies.size();
    }

    synchronized int sources() {
        return sources.size();
    }

    /** The distinct source addresses seen, as text. */
    synchronized Set<String> sourceAddresses() {
        Set<String> out = new java.util.TreeSet<>();
        for (InetSocketAddress a : sources) {
            out.add(a.getAddress().getHostAddress());
        }
        return out;
    }

    /** Waits, at most {@code maxMillis}, until {@code expected} datagrams have arrived. */
    boolean awaitDatagrams(long expected, long maxMillis) throws InterruptedException {
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        while (datagrams() < expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return datagrams() >= expected;
    }

    @Override
    public void close() throws IOException {
        running = false;
        channel.close();
    }
}
