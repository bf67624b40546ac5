// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/**
 * What the caller knows about a datagram that is not in it: who sent it and when it arrived. The
 * codec reads no clock, so the receive time comes from here.
 *
 * @param exporter the datagram's source
 * @param receivedMillis when the collector received it, epoch milliseconds
 */
public record DecodeContext(ExporterKey exporter, long receivedMillis) {

    public DecodeContext {
        if (exporter == null) {
            throw new IllegalArgumentException("exporter is null");
        }
    }
}
