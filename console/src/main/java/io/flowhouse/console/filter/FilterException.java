// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

/** A filter that cannot be used: the message says what and where (0-based character). */
public final class FilterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int position;

    public FilterException(String message, int position) {
        super(message);
        this.position = position;
    }

    /** Where in the filter text, or -1 for the whole filter. */
    public int position() {
        return position;
    }
}
