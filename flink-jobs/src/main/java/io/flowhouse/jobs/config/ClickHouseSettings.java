// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.jobs.tables.JobSchema;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import java.io.Serializable;
import java.time.Duration;

/**
 * ClickHouse connection of the job. The password never travels in the job graph: the TaskManager
 * reads it from {@code passwordFile}, else from the environment variable {@link #PASSWORD_ENV} when
 * that was set where the job was submitted; otherwise the password is empty.
 *
 * @param url HTTP endpoint
 * @param database database of the flow tables
 * @param user user name
 * @param passwordFile file holding the password, or empty
 * @param passwordFromEnv whether the TaskManagers read the password from {@link #PASSWORD_ENV}
 * @param batchSize rows per insert
 * @param flushInterval longest wait of a row in a batch
 * @param maxRetries retries of a retriable insert failure before the job fails
 * @param startupTimeout how long a writer that opens retries while ClickHouse is unreachable
 * @param flowsTtlDays days raw flows are kept on servers with TTL (0: forever)
 */
public record ClickHouseSettings(
        String url,
        String database,
        String user,
        String passwordFile,
        boolean passwordFromEnv,
        int batchSize,
        Duration flushInterval,
        int maxRetries,
        Duration startupTimeout,
        int flowsTtlDays)
        implements Serializable {

    /** Environment variable with the password when no file is given. */
    public static final String PASSWORD_ENV = "FLOWHOUSE_CLICKHOUSE_PASSWORD";

    public ClickHouseSettings {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " (expected: >= 1)");
        }
        if (flushInterval.isNegative() || flushInterval.isZero()) {
            throw new IllegalArgumentException(
                    "flush interval " + flushInterval + " (expected: > 0)");
        }
        if (maxRetries < 0 || flowsTtlDays < 0) {
            throw new IllegalArgumentException(
                    "max retries "
                            + maxRetries
                            + ", TTL days "
                            + flowsTtlDays
                            + " (expected: >= 0)");
        }
        if (startupTimeout.isNegative()) {
            throw new IllegalArgumentException(
                    "startup timeout " + startupTimeout + " (expected: >= 0)");
        }
        passwordFile = passwordFile == null ? "" : passwordFile;
    }

    public ClickHouseSinkOptions toSinkOptions() {
        ClickHouseSinkOptions.Builder b =
                ClickHouseSinkOptions.builder()
                        .url(url)
                        .database(database)
                        .user(user)
                        .batchMaxRows(batchSize)
                        .flushInterval(flushInterval)
                        .maxRetries(maxRetries)
                        .startupTimeout(startupTimeout);
        if (!passwordFile.isEmpty()) {
            b.passwordFile(passwordFile);
        } else if (passwordFromEnv) {
            b.passwordEnv(PASSWORD_ENV);
        }
        return b.build();
    }

    /** The job's tables on this connection, with this retention. */
    public JobTables tables() {
        return new JobTables(toSinkOptions(), flowsTtlDays, JobSchema.STATS_TTL_DAYS);
    }
}
