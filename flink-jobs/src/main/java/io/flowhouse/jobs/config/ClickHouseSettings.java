// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.Serializable;
import java.time.Duration;

/**
 * ClickHouse connection for the job. The password comes from a file or the environment, never from
 * a flag, and is left out of {@link #toString()}.
 */
public record ClickHouseSettings(
        String url,
        String database,
        String user,
        String password,
        int batchSize,
        Duration flushInterval)
        implements Serializable {

    public ClickHouseSettings {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " (expected: >= 1)");
        }
        if (flushInterval.isNegative() || flushInterval.isZero()) {
            throw new IllegalArgumentException(
                    "flush interval " + flushInterval + " (expected: > 0)");
        }
    }

    @Override
    public String toString() {
        return "ClickHouseSettings[url="
                + url
                + ", database="
                + database
                + ", user="
                + user
                + ", password="
                + (password.isEmpty() ? "<empty>" : "<set>")
                + ", batchSize="
                + batchSize
                + ", flushInterval="
                + flushInterval
                + "]";
    }
}
