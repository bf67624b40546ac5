// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.loadgen.export.ExportDatagram;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Sends each datagram to several sinks (e.g. UDP and a pcap file); the first sink names the
 * sources. A failure in one sink does not stop the others; the first failure is rethrown.
 */
public final class TeeSink implements DatagramSink {
    private final List<DatagramSink> sinks;

    public TeeSink(List<DatagramSink> sinks) {
        if (sinks.isEmpty()) {
            throw new IllegalArgumentException("no sinks");
        }
        this.sinks = List.copyOf(sinks);
    }

    @Override
    public void send(ExportDatagram d, long timeMillis) throws IOException {
        IOException first = null;
        for (DatagramSink s : sinks) {
            try {
                s.send(d, timeMillis);
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

    @Override
    public InetSocketAddress source(int exporter) {
        return sinks.get(0).source(exporter);
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (DatagramSink s : sinks) {
            try {
                s.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
