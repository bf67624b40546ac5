// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.Serializable;

/**
 * Bounds of the duplicate check of stamped datagrams (per decode key).
 *
 * @param maxStreams agent streams remembered per exporter key; the least recently received is
 *     forgotten when another begins
 * @param maxGaps runs of not yet seen sequence numbers remembered per stream; beyond, the oldest is
 *     forgotten and what falls below it is accepted unchecked
 */
public record DedupSettings(int maxStreams, int maxGaps) implements Serializable {

    public DedupSettings {
        if (maxStreams < 1 || maxGaps < 1) {
            throw new IllegalArgumentException(
                    "dedup streams " + maxStreams + ", gaps " + maxGaps + " (expected: >= 1 each)");
        }
    }

    public static DedupSettings defaults() {
        return new DedupSettings(
                JobKeys.DEDUP_MAX_STREAMS.defaultValue(), JobKeys.DEDUP_MAX_GAPS.defaultValue());
    }
}
