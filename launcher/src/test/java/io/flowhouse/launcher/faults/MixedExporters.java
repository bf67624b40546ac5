// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.v5.V5Encoder;
import io.flowhouse.codec.v9.V9Encoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Eight exporters on their own source ports, as a site has them: three NetFlow v5, three NetFlow v9
 * and two IPFIX, the v9 and IPFIX ones with an IPv4 and an IPv6 template (both sets in every
 * message), several interfaces each, flow times near the wall clock. {@link #restart} makes an
 * exporter start over on the same port (sequence numbers, uptime and templates). Every payload sent
 * is remembered with its flows, packets and bytes, and those sent while the test had marked the
 * receiver down are the loss a test may accept.
 */
final class MixedExporters implements AutoCloseable {

    static final int EXPORTERS = 8;

    private static final Template V9_V4 =
            Template.of(
                    256,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IPV4_SRC_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.IPV4_DST_ADDR, 4),
                            FieldSpecifier.of(V9Encoder.L4_SRC_PORT, 2),
                            FieldSpecifier.of(V9Encoder.L4_DST_PORT, 2),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.INPUT_SNMP, 2),
                            FieldSpecifier.of(V9Encoder.OUTPUT_SNMP, 2),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 4),
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 4),
                            FieldSpecifier.of(V9Encoder.FIRST_SWITCHED, 4),
                            FieldSpecifier.of(V9Encoder.LAST_SWITCHED, 4)));
    private static final Template V9_V6 =
            Template.of(
                    257,
                    List.of(
                            FieldSpecifier.of(V9Encoder.IPV6_SRC_ADDR, 16),
                            FieldSpecifier.of(V9Encoder.IPV6_DST_ADDR, 16),
                            FieldSpecifier.of(V9Encoder.L4_SRC_PORT, 2),
                            FieldSpecifier.of(V9Encoder.L4_DST_PORT, 2),
                            FieldSpecifier.of(V9Encoder.PROTOCOL, 1),
                            FieldSpecifier.of(V9Encoder.INPUT_SNMP, 2),
                            FieldSpecifier.of(V9Encoder.OUTPUT_SNMP, 2),
                            FieldSpecifier.of(V9Encoder.IN_PKTS, 4),
                            FieldSpecifier.of(V9Encoder.IN_BYTES, 4),
                            FieldSpecifier.of(V9Encoder.FIRST_SWITCHED, 4),
                            FieldSpecifier.of(V9Encoder.LAST_SWITCHED, 4)));

    /** One exporter: its socket and what it counts. */
    private static final class Exporter {
        final int index;
        final int version;
        final DatagramChannel channel;
        final InetSocketAddress target;
        long bootMillis;
        long sequence;
        int sent;
        int emitted; // not reset by a restart
        IpfixEncoder ipfix = new IpfixEncoder();

        Exporter(int index, int version, InetSocketAddress bind, InetSocketAddress target)
                throws IOException {
            this.index = index;
            this.version = version;
            this.target = target;
            this.channel = DatagramChannel.open();
            channel.bind(bind);
            this.bootMillis = System.currentTimeMillis() - 3_600_000L;
        }
    }

    private final List<Exporter> exporters = new ArrayList<>();
    private final Map<ByteBuffer, long[]> totals = new HashMap<>();
    private final Map<ByteBuffer, int[]> origins = new HashMap<>();
    private final Set<ByteBuffer> sentWhileDown = new HashSet<>();
    private final Set<Integer> down = new HashSet<>();
    private final Set<Long> downOrders = new HashSet<>();
    private int restarts;

    MixedExporters(int port) throws IOException {
        this(
                i -> new InetSocketAddress("127.0.0.1", 0),
                i -> new InetSocketAddress("127.0.0.1", port));
    }

    /**
     * Exporter {@code i} bound to {@code bindOf(i)} (its own address, as routers have) and sending
     * to {@code targetOf(i)} (two collectors, each with its share of the exporters).
     */
    MixedExporters(IntFunction<InetSocketAddress> bindOf, IntFunction<InetSocketAddress> targetOf)
            throws IOException {
        int[] versions = {5, 5, 5, 9, 9, 9, 10, 10};
        for (int i = 0; i < EXPORTERS; i++) {
            exporters.add(new Exporter(i, versions[i], bindOf.apply(i), targetOf.apply(i)));
        }
    }

    /**
     * Runs {@code action} while no datagram is being sent: a datagram sent before it has left, one
     * after it is sent after it.
     */
    synchronized void between(Runnable action) {
        action.run();
    }

    /** Datagrams sent so far by the exporters {@code which} accepts. */
    synchronized int sentBy(java.util.function.IntPredicate which) {
        int n = 0;
        for (Exporter e : exporters) {
            n += which.test(e.index) ? e.emitted : 0;
        }
        return n;
    }

    /** Sends {@code rounds} datagrams from every exporter, {@code perSecond} in all. */
    void send(int rounds, int perSecond) {
        long interval = 1_000_000_000L / perSecond;
        long due = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            for (Exporter e : exporters) {
                LockSupport.parkNanos(due - System.nanoTime());
                due += interval;
                sendOne(e);
            }
        }
    }

    /** Exporter {@code index} starts over on the same port. */
    synchronized void restart(int index) {
        Exporter e = exporters.get(index);
        e.sequence = 0;
        e.sent = 0;
        e.bootMillis = System.currentTimeMillis() - 1_000L;
        e.ipfix = new IpfixEncoder();
        restarts++;
    }

    private synchronized void sendOne(Exporter e) {
        long now = System.currentTimeMillis();
        int n = e.sent++;
        List<FlowRecord> v4 = new ArrayList<>();
        List<FlowRecord> v6 = new ArrayList<>();
        int v4Flows = e.version == 5 ? 3 : 2;
        int v6Flows = e.version == 5 ? 0 : 2;
        for (int k = 0; k < v4Flows; k++) {
            v4.add(flow(e, n, k, false, now - 500));
        }
        for (int k = 0; k < v6Flows; k++) {
            v6.add(flow(e, n, k, true, now - 500));
        }
        byte[] payload = encode(e, n, now, v4, v6);
        long[] t = new long[3];
        for (FlowRecord f : v4) {
            t[0]++;
            t[1] += f.packets();
            t[2] += f.bytes();
        }
        for (FlowRecord f : v6) {
            t[0]++;
            t[1] += f.packets();
            t[2] += f.bytes();
        }
        ByteBuffer key = ByteBuffer.wrap(payload);
        totals.put(key, t);
        int order = e.emitted++;
        origins.put(key, new int[] {e.index, order});
        boolean isDown = down.contains(e.index);
        if (isDown) {
            sentWhileDown.add(key);
            downOrders.add(((long) e.index << 32) | order);
        }
        try {
            e.channel.send(ByteBuffer.wrap(payload), e.target);
        } catch (IOException x) {
            if (!isDown) {
                throw new UncheckedIOException(x);
            }
        }
    }

    private static FlowRecord flow(Exporter e, int n, int k, boolean v6, long end) {
        long packets = n % 7 + 1 + k;
        String src =
                v6
                        ? "2001:db8:" + e.index + "::" + (n % 4 + 1)
                        : "10." + e.index + ".0." + (n % 8 + 1);
        String dst = v6 ? "2001:db8:ff::" + (k + 1) : "10.255.0." + (k + 1);
        return FlowRecord.builder()
                .ipVersion(v6 ? 6 : 4)
                .srcAddr(IpAddress.parse(src))
                .dstAddr(IpAddress.parse(dst))
                .srcPort(1024 + n % 60_000)
                .dstPort(443 + k)
                .protocol(6)
                .packets(packets)
                .bytes(100 * packets + n % 13 + k)
                .inputInterface(1 + e.index % 3 + (v6 ? 10 : 0))
                .outputInterface(20 + k)
                .flowStartMillis(end)
                .flowEndMillis(end)
                .build();
    }

    private static byte[] encode(
            Exporter e, int n, long now, List<FlowRecord> v4, List<FlowRecord> v6) {
        ByteBuffer out = ByteBuffer.allocate(65_535);
        switch (e.version) {
            case 5 -> {
                V5Encoder.encode(
                        new V5Encoder.Header(now, now - e.bootMillis, e.sequence, 0, e.index, 0, 0),
                        v4,
                        out);
                e.sequence += v4.size();
            }
            case 9 -> {
                V9Encoder.Message m =
                        V9Encoder.begin(
                                out,
                                new V9Encoder.Header(
                                        now, now - e.bootMillis, e.sequence++, e.index));
                if (n % 10 == 0) {
                    m.templates(List.of(V9_V4, V9_V6));
                }
                m.data(V9_V6, v6);
                m.data(V9_V4, v4);
                m.finish();
            }
            default -> {
                IpfixEncoder.Message m = e.ipfix.begin(out, e.index, now / 1000);
                if (n % 10 == 0) {
                    m.template(IpfixEncoder.FLOW_TEMPLATE_IPV4)
                            .template(IpfixEncoder.FLOW_TEMPLATE_IPV6);
                }
                m.data(IpfixEncoder.FLOW_TEMPLATE_IPV6_ID);
                for (FlowRecord f : v6) {
                    IpfixEncoder.writeFlow(m, IpfixEncoder.FLOW_TEMPLATE_IPV6, f);
                }
                m.data(IpfixEncoder.FLOW_TEMPLATE_IPV4_ID);
                for (FlowRecord f : v4) {
                    IpfixEncoder.writeFlow(m, IpfixEncoder.FLOW_TEMPLATE_IPV4, f);
                }
                m.finish();
            }
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Marks every exporter's receiver down (or up): what is sent meanwhile may be lost. */
    synchronized void down(boolean value) {
        for (int i = 0; i < EXPORTERS; i++) {
            down(i, value);
        }
    }

    /** Marks exporter {@code index}'s receiver down (or up). */
    synchronized void down(int index, boolean value) {
        if (value) {
            down.add(index);
        } else {
            down.remove(index);
        }
    }

    /**
     * The exporter index of a payload sent and its place in that exporter's sending order (from 0,
     * across restarts), or null if this sender did not send it.
     */
    synchronized int[] originOf(byte[] payload) {
        int[] o = origins.get(ByteBuffer.wrap(payload));
        return o == null ? null : o.clone();
    }

    /** The exporter ports, in exporter order. */
    List<Integer> ports() throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (Exporter e : exporters) {
            ports.add(((InetSocketAddress) e.channel.getLocalAddress()).getPort());
        }
        return ports;
    }

    synchronized int sent() {
        return totals.size();
    }

    synchronized int sentWhileDown() {
        return sentWhileDown.size();
    }

    synchronized int restarts() {
        return restarts;
    }

    /** Flows, packets and bytes of a payload sent, or null if it was not sent by this sender. */
    synchronized long[] totalsOf(byte[] payload) {
        return totals.get(ByteBuffer.wrap(payload));
    }

    synchronized boolean wasSentWhileDown(byte[] payload) {
        return sentWhileDown.contains(ByteBuffer.wrap(payload));
    }

    /** Whether exporter {@code index}'s datagram number {@code order} was sent while down. */
    synchronized boolean wasSentWhileDown(int index, int order) {
        return downOrders.contains(((long) index << 32) | order);
    }

    /** Flows, packets and bytes of every payload sent. */
    synchronized long[] sentTotals() {
        long[] t = new long[3];
        for (long[] v : totals.values()) {
            t[0] += v[0];
            t[1] += v[1];
            t[2] += v[2];
        }
        return t;
    }

    @Override
    public void close() throws IOException {
        for (Exporter e : exporters) {
            e.channel.close();
        }
    }
}
