// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import java.util.Arrays;

/**
 * A template as kept in keyed state: its {@code TemplateWire} bytes and where it came from.
 *
 * @param wire {@code TemplateWire.encode(template)}
 * @param validFromMillis receive time of the datagram that first carried this layout
 * @param archived true when it was restored from the templates topic rather than seen in the
 *     stream; such a template is only used for datagrams received at or after {@code
 *     validFromMillis}, so that a replay from before a template change never decodes old data with
 *     the newer layout
 */
public record StoredTemplate(byte[] wire, long validFromMillis, boolean archived) {

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredTemplate s
                && validFromMillis == s.validFromMillis
                && archived == s.archived
                && Arrays.equals(wire, s.wire);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(wire) + Long.hashCode(validFromMillis))
                + Boolean.hashCode(archived);
    }

    @Override
    public String toString() {
        return "StoredTemplate["
                + wire.length
                + " bytes, from "
                + validFromMillis
                + (archived ? ", archived]" : "]");
    }
}
