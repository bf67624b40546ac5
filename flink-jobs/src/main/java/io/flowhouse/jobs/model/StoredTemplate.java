// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import java.util.Arrays;

/**
 * A template as kept in keyed state: its {@code TemplateWire} bytes, where it came from and how
 * long it holds. All times are receive times of datagrams (the agent's clock), never the clock of
 * the task, so a replay expires templates where the live run did.
 *
 * @param wire {@code TemplateWire.encode(template)}
 * @param validFromMillis receive time of the datagram that first carried this layout
 * @param lastSeenMillis receive time of the latest datagram that carried it (its refresh); the
 *     template expires when a datagram is received more than the template lifetime after it
 * @param validUntilMillis receive time it was withdrawn or expired at, as the archive says; {@code
 *     Long.MAX_VALUE} while live
 * @param archivedMillis the {@code lastSeenMillis} last written to the templates topic (0: none)
 * @param archived true when it was restored from the templates topic rather than seen in the
 *     stream; such a template is only used for datagrams received at or after {@code
 *     validFromMillis}, so that a replay from before a template change never decodes old data with
 *     the newer layout
 */
public record StoredTemplate(
        byte[] wire,
        long validFromMillis,
        long lastSeenMillis,
        long validUntilMillis,
        long archivedMillis,
        boolean archived) {

    /** A template just seen in the stream. */
    public static StoredTemplate seen(byte[] wire, long validFromMillis, long receivedMillis) {
        return new StoredTemplate(wire, validFromMillis, receivedMillis, Long.MAX_VALUE, 0L, false);
    }

    /** Whether it ended (withdrawn or expired) by the time {@code receivedMillis}. */
    public boolean endedBy(long receivedMillis, long lifetimeMillis) {
        return receivedMillis > validUntilMillis
                || receivedMillis - lastSeenMillis > lifetimeMillis;
    }

    /** Whether a datagram received at {@code receivedMillis} may use it. */
    public boolean usableAt(long receivedMillis, long lifetimeMillis) {
        return !(archived && receivedMillis < validFromMillis)
                && !endedBy(receivedMillis, lifetimeMillis);
    }

    /** Whether the archive already knows it ended. */
    public boolean endArchived() {
        return validUntilMillis != Long.MAX_VALUE;
    }

    public StoredTemplate withLastSeen(long receivedMillis) {
        return new StoredTemplate(
                wire, validFromMillis, receivedMillis, validUntilMillis, archivedMillis, archived);
    }

    public StoredTemplate withArchived(long lastSeenArchived) {
        return new StoredTemplate(
                wire,
                validFromMillis,
                lastSeenMillis,
                validUntilMillis,
                lastSeenArchived,
                archived);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredTemplate s
                && validFromMillis == s.validFromMillis
                && lastSeenMillis == s.lastSeenMillis
                && validUntilMillis == s.validUntilMillis
                && archivedMillis == s.archivedMillis
                && archived == s.archived
                && Arrays.equals(wire, s.wire);
    }

    @Override
    public int hashCode() {
        int h = Arrays.hashCode(wire);
        h = 31 * h + Long.hashCode(validFromMillis);
        h = 31 * h + Long.hashCode(lastSeenMillis);
        h = 31 * h + Long.hashCode(validUntilMillis);
        h = 31 * h + Long.hashCode(archivedMillis);
        return 31 * h + Boolean.hashCode(archived);
    }

    @Override
    public String toString() {
        return "StoredTemplate["
                + wire.length
                + " bytes, from "
                + validFromMillis
                + ", seen "
                + lastSeenMillis
                + (validUntilMillis == Long.MAX_VALUE ? "" : ", until " + validUntilMillis)
                + (archived ? ", archived]" : "]");
    }
}
