// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import io.flowhouse.loadgen.export.ExportDatagram;
import java.io.IOException;
import java.net.InetSocketAddress;

/** Where datagrams go: UDP sockets, a pcap file, or both. */
public interface DatagramSink extends AutoCloseable {

    /**
     * Sends or writes one datagram of exporter {@code d.exporter()} at {@code timeMillis}.
     *
     * @throws IOException if this datagram could not be sent; the caller counts it as an error
     */
    void send(ExportDatagram d, long timeMillis) throws IOException;

    /** The source address and port exporter {@code exporter} appears with. */
    InetSocketAddress source(int exporter);

    @Override
    void close() throws IOException;
}
