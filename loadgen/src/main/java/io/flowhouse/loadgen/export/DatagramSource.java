// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

/** A simulated exporter as the emitter drives it: builds datagrams and knows its own identity. */
public interface DatagramSource {

    /**
     * The next datagram, exported at {@code exportTimeMillis}, with at most {@code maxFlows} (>= 1)
     * data records where the source can honour it. The payload is valid until the next call.
     */
    ExportDatagram next(long exportTimeMillis, int maxFlows);

    int index();

    ExportProtocol protocol();

    /** Observation domain id (IPFIX), source id (v9) or engine id (v5). */
    long domainId();

    /** The sequence number the next datagram will carry. */
    long sequence();

    /** Sequence gaps injected so far. */
    long gaps();

    /** Sequence numbers skipped by the injected gaps. */
    long missingSequence();
}
