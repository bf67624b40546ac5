// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.envelope.RawDatagram;
import java.util.Arrays;

/**
 * A datagram held in keyed state because templates it needs have not been seen yet.
 *
 * @param datagram the datagram as received
 * @param deadlineMillis processing time after which it is decoded with what is known and the rest
 *     is rejected
 * @param version its template scope: version
 * @param observationDomainId its template scope: domain / source id
 * @param waits the template ids it waits for (every one missing when it arrived)
 * @param bytes what it counts for in the exporter's state bytes
 */
public record HeldDatagram(
        RawDatagram datagram,
        long deadlineMillis,
        int version,
        long observationDomainId,
        int[] waits,
        long bytes) {

    /** The template of its scope it waits for, by index in {@link #waits}. */
    public TemplateStateKey wait(int i) {
        return new TemplateStateKey(version, observationDomainId, waits[i]);
    }

    /** Whether it waits for template {@code id}. */
    public boolean waitsFor(int id) {
        for (int w : waits) {
            if (w == id) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HeldDatagram h
                && datagram.equals(h.datagram)
                && deadlineMillis == h.deadlineMillis
                && version == h.version
                && observationDomainId == h.observationDomainId
                && bytes == h.bytes
                && Arrays.equals(waits, h.waits);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * datagram.hashCode() + Long.hashCode(deadlineMillis))
                + Arrays.hashCode(waits);
    }

    @Override
    public String toString() {
        return "HeldDatagram[v"
                + version
                + " domain "
                + observationDomainId
                + " waits "
                + Arrays.toString(waits)
                + " until "
                + deadlineMillis
                + "]";
    }
}
