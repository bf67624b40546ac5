// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.jobs.tables.JobSchema;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import java.io.Serializable;

/**
 * The job's ClickHouse connection: the sink's options, built and checked by the sink from its keys
 * ({@link ClickHouseSinkKeys}), and how long the job keeps raw flows. The password never travels in
 * the job graph: the TaskManager reads it from the password file, else from {@link #PASSWORD_ENV}
 * when that was set where the job was submitted; otherwise it is empty.
 *
 * @param sink the sink's options
 * @param flowsTtlDays days raw flows are kept on servers with TTL (0: forever)
 * @param enabled whether the job writes ClickHouse at all (false: a topic-only deployment)
 */
public record ClickHouseSettings(ClickHouseSinkOptions sink, int flowsTtlDays, boolean enabled)
        implements Serializable {

    /** Written (the default). */
    public ClickHouseSettings(ClickHouseSinkOptions sink, int flowsTtlDays) {
        this(sink, flowsTtlDays, true);
    }

    /** Environment variable with the password when no file is given. */
    public static final String PASSWORD_ENV = ClickHouseSinkKeys.PASSWORD_ENV;

    public ClickHouseSinkOptions toSinkOptions() {
        return sink;
    }

    public String url() {
        return sink.url();
    }

    public String database() {
        return sink.database();
    }

    public String user() {
        return sink.user();
    }

    /** The job's tables on this connection, with this retention. */
    public JobTables tables() {
        return new JobTables(sink, flowsTtlDays, JobSchema.STATS_TTL_DAYS);
    }
}
