// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/** The datagram is shorter than its header, or than the length its header declares. */
public final class TruncatedMessageException extends DecodeException {

    private static final long serialVersionUID = 1L;

    public TruncatedMessageException(DecodeProblem.Kind kind, String message) {
        super(kind, message);
    }
}
