// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the SNMP directory counts, as plain getters: the job's enrich stage exposes them as its
 * metrics (this module has no Flink).
 */
public final class SnmpCounters {

    final AtomicLong pollsOk = new AtomicLong();
    final AtomicLong pollsFailed = new AtomicLong();
    final AtomicLong pollsTimedOut = new AtomicLong();
    final AtomicLong exportersDropped = new AtomicLong();
    final AtomicLong tablesCut = new AtomicLong();
    final AtomicLong valuesTruncated = new AtomicLong();
    final AtomicLong exportersWithoutCredentials = new AtomicLong();

    /** Polls that walked the whole table (or up to max-interfaces). */
    public long pollsOk() {
        return pollsOk.get();
    }

    /** Polls the agent refused (wrong v3 user or keys, an error status, a table out of order). */
    public long pollsFailed() {
        return pollsFailed.get();
    }

    /** Polls without an answer after every retry (agent down, slow, or a wrong community). */
    public long pollsTimedOut() {
        return pollsTimedOut.get();
    }

    /** Exporters dropped, least recently observed first, to stay within max-exporters. */
    public long exportersDropped() {
        return exportersDropped.get();
    }

    /** Polls whose interface table was cut at max-interfaces (the rest is not walked). */
    public long tablesCut() {
        return tablesCut.get();
    }

    /** Strings cut to max-string-chars. */
    public long valuesTruncated() {
        return valuesTruncated.get();
    }

    /** Exporters observed that no credentials entry covers (never polled). */
    public long exportersWithoutCredentials() {
        return exportersWithoutCredentials.get();
    }

    @Override
    public String toString() {
        return "polls ok "
                + pollsOk()
                + ", failed "
                + pollsFailed()
                + ", timed out "
                + pollsTimedOut()
                + "; exporters dropped "
                + exportersDropped()
                + ", without credentials "
                + exportersWithoutCredentials()
                + "; tables cut "
                + tablesCut()
                + "; values truncated "
                + valuesTruncated();
    }
}
