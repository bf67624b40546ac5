// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.envelope.RawDatagram;

/**
 * A datagram held in keyed state because a template it needs has not been seen yet.
 *
 * @param datagram the datagram as received
 * @param deadlineMillis processing time after which it is decoded with what is known and the rest
 *     is rejected
 */
public record HeldDatagram(RawDatagram datagram, long deadlineMillis) {}
