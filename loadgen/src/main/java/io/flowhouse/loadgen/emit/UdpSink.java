// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.loadgen.export.ExportDatagram;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;

/**
 * One UDP socket per simulated exporter, each bound to its own source port, all sending to one
 * collector. Sockets are blocking (a full send buffer slows the sender instead of dropping) and
 * unconnected (an ICMP port-unreachable from a collector that is not up yet cannot fail later
 * sends).
 */
public final class UdpSink implements DatagramSink {

    private final DatagramChannel[] channels;
    private final InetSocketAddress[] sources;
    private final InetSocketAddress target;

    /**
     * @param bindAddress the local address; with a trailing {@code +} (e.g. {@code 127.0.0.2+})
     *     exporter i binds that address plus i, so each exporter has its own address, as real
     *     exporters do (collectors and rollups key exporters by address)
     * @param sourcePortBase 0 for ephemeral ports, else exporter i binds {@code sourcePortBase + i}
     */
    public UdpSink(
            int exporters,
            InetSocketAddress target,
            String bindAddress,
            int sourcePortBase,
            int sendBufferBytes)
            throws IOException {
        this.target = target;
        this.channels = new DatagramChannel[exporters];
        this.sources = new InetSocketAddress[exporters];
        try {
            for (int i = 0; i < exporters; i++) {
                DatagramChannel ch = DatagramChannel.open();
                channels[i] = ch;
                ch.setOption(StandardSocketOptions.SO_SNDBUF, sendBufferBytes);
                ch.bind(
                        new InetSocketAddress(
                                bindAddress(bindAddress, i),
                                sourcePortBase == 0 ? 0 : sourcePortBase + i));
                ch.configureBlocking(true);
                sources[i] = (InetSocketAddress) ch.getLocalAddress();
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    /**
     * The address exporter {@code i} binds: {@code spec}, or for {@code ADDR+} the address ADDR
     * plus i (IPv4 or IPv6, with carry).
     *
     * @throws IllegalArgumentException if ADDR + i leaves the address space
     */
    public static InetAddress bindAddress(String spec, int i) throws UnknownHostException {
        if (!spec.endsWith("+")) {
            return InetAddress.getByName(spec);
        }
        byte[] a = InetAddress.getByName(spec.substring(0, spec.length() - 1)).getAddress();
        long carry = i;
        for (int k = a.length - 1; k >= 0 && carry != 0; k--) {
            long v = (a[k] & 0xff) + carry;
            a[k] = (byte) v;
            carry = v >>> 8;
        }
        if (carry != 0) {
            throw new IllegalArgumentException(spec + " plus " + i + " leaves the address space");
        }
        return InetAddress.getByAddress(a);
    }

    @Override
    public void send(ExportDatagram d, long timeMillis) throws IOException {
        int n = channels[d.exporter()].send(d.payload().duplicate(), target);
        if (n != d.length()) {
            throw new IOException("sent " + n + " of " + d.length() + " bytes");
        }
    }

    @Override
    public InetSocketAddress source(int exporter) {
        return sources[exporter];
    }

    public InetSocketAddress target() {
        return target;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (DatagramChannel ch : channels) {
            if (ch == null) {
                continue;
            }
            try {
                ch.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void closeQuietly(Exception cause) {
        try {
            close();
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
