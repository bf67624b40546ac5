// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit;

import org.testcontainers.utility.DockerImageName;

/**
 * Every container image a test may start, pinned in one place. Tests that use them run where a
 * Docker engine exists; on machines without one they go through {@link ServiceRequirement} (skip
 * locally, fail in CI) or use the real local services instead. The same tags are the defaults in
 * {@code docker/}.
 */
public final class ContainerImages {

    /** Apache Kafka in KRaft mode. */
    public static final String KAFKA = "apache/kafka:4.1.0";

    /** A current ClickHouse server (CI's local server is Debian's 18.16). */
    public static final String CLICKHOUSE = "clickhouse/clickhouse-server:24.8";

    /** Flink JobManager/TaskManager image matching the Flink version in the root pom. */
    public static final String FLINK = "flink:2.2-java17";

    private ContainerImages() {}

    public static DockerImageName kafka() {
        return DockerImageName.parse(KAFKA);
    }

    public static DockerImageName clickhouse() {
        return DockerImageName.parse(CLICKHOUSE);
    }

    public static DockerImageName flink() {
        return DockerImageName.parse(FLINK);
    }
}
