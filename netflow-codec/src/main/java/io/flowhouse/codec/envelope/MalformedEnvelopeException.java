// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

/** A Kafka record key or value that is not a valid Flowhouse envelope. */
public final class MalformedEnvelopeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public MalformedEnvelopeException(String message) {
        super(message);
    }
}
