// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/** The header is readable but its fields contradict each other or the datagram. */
public final class MalformedSetException extends DecodeException {

    private static final long serialVersionUID = 1L;

    public MalformedSetException(DecodeProblem.Kind kind, String message) {
        super(kind, message);
    }
}
