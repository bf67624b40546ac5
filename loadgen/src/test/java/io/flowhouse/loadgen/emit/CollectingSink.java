// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.loadgen.export.ExportDatagram;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** Keeps a copy of every datagram, for tests; exporter i appears as 127.0.0.1:(20000+i). */
public final class CollectingSink implements DatagramSink {

    /** One datagram as received. */
    public record Sent(int exporter, byte[] payload, ExportDatagram datagram, long timeMillis) {}

    private final List<Sent> sent = new ArrayList<>();

    @Override
    public void send(ExportDatagram d, long timeMillis) {
        sent.add(new Sent(d.exporter(), d.toByteArray(), d, timeMillis));
    }

    @Override
    public InetSocketAddress source(int exporter) {
        return new InetSocketAddress("127.0.0.1", 20_000 + exporter);
    }

    public List<Sent> sent() {
        return sent;
    }

    @Override
    public void close() {}
}
