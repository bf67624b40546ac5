// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

/**
 * What one exporter key holds in the decode step's state, kept beside it so that every bound is
 * checked in O(1): the bytes it takes (templates, options data, scopes, held datagrams, this
 * record), the counts the limits are stated in, the held datagrams' arrival counters, and when the
 * key was last active, for the idle timeout. Absent while the key holds nothing (a NetFlow v5
 * exporter never has one). A mutable Flink POJO: read, change, write back.
 */
public final class ExporterFootprint {

    /** Bytes counted for this record itself. */
    public static final int OWN_BYTES = 128;

    /** Bytes of decode state of this key, as counted (this record included). */
    public long bytes;

    /** Templates in state (data and options, all scopes). */
    public int templates;

    /** Scopes (version, domain) with templates or options data in state. */
    public int scopes;

    /** Withdrawal marks in state (templates and whole scopes withdrawn). */
    public int withdrawals;

    /** Datagrams held for a template, and their bytes as counted. */
    public int held;

    public long heldBytes;

    /** Arrival number of the oldest datagram that may still be held. */
    public long firstHeld;

    /** Arrival number the next held datagram gets. */
    public long nextHeld;

    /** Processing time of the pending hold timer, 0 when none. */
    public long heldTimer;

    /** Processing time of the latest datagram (or archive entry), coarse. */
    public long lastActiveMillis;

    /** Receive time of the latest datagram, coarse; {@code Long.MIN_VALUE} before the first. */
    public long lastReceivedMillis = Long.MIN_VALUE;

    /** Processing time of the pending idle timer, 0 when none. */
    public long idleTimer;

    public ExporterFootprint() {}

    /** Whether the key holds nothing but this record. */
    public boolean empty() {
        return bytes <= OWN_BYTES && templates == 0 && scopes == 0 && withdrawals == 0 && held == 0;
    }

    @Override
    public String toString() {
        return "ExporterFootprint["
                + bytes
                + " bytes, "
                + templates
                + " templates, "
                + scopes
                + " scopes, "
                + withdrawals
                + " withdrawals, "
                + held
                + " held]";
    }
}
