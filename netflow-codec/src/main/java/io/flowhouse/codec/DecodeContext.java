// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/**
 * What the caller knows about a datagram that is not in it: who sent it, when it arrived and which
 * agent stream carried it. The codec reads no clock, so the receive time comes from here; the
 * stream identity is copied into every record as it is built.
 *
 * @param exporter the datagram's source
 * @param receivedMillis when the collector received it, epoch milliseconds
 * @param streamId the agent stream that carried the datagram ({@code DatagramStamp.streamId}), 0
 *     when unknown
 * @param streamSequence the datagram's position in that stream
 */
public record DecodeContext(
        ExporterKey exporter, long receivedMillis, long streamId, long streamSequence) {

    public DecodeContext {
        if (exporter == null) {
            throw new IllegalArgumentException("exporter is null");
        }
    }

    /** A datagram without a stream identity. */
    public DecodeContext(ExporterKey exporter, long receivedMillis) {
        this(exporter, receivedMillis, 0L, 0L);
    }
}
