// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import java.util.Objects;

/**
 * A datagram that failed the agent's header check: the value of a record on topic {@code
 * flows.rejected} (protobuf message {@code flowhouse.v1.RejectedDatagram}, a superset of {@code
 * RawDatagram}).
 *
 * @param datagram the datagram as received
 * @param reason machine-readable reason, upper snake case (e.g. {@code UNSUPPORTED_VERSION})
 * @param detail human-readable detail; may be empty
 */
public record RejectedDatagram(RawDatagram datagram, String reason, String detail) {

    public RejectedDatagram {
        Objects.requireNonNull(datagram, "datagram");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
    }
}
