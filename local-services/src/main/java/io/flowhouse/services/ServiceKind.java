// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.util.Locale;

/** The local services, in start order; {@code down} stops them in reverse. */
public enum ServiceKind {
    CLICKHOUSE("clickhouse"),
    KAFKA("kafka"),
    FLINK_JOBMANAGER("flink-jobmanager"),
    FLINK_TASKMANAGER("flink-taskmanager");

    private final String serviceName;

    ServiceKind(String serviceName) {
        this.serviceName = serviceName;
    }

    public String serviceName() {
        return serviceName;
    }

    /** Parses "kafka", "clickhouse", "flink-jobmanager", "flink-taskmanager". */
    public static ServiceKind parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (ServiceKind kind : values()) {
            if (kind.serviceName.equals(wanted)) {
                return kind;
            }
        }
        throw new IllegalArgumentException(
                "unknown service '"
                        + name
                        + "' (expected: clickhouse, kafka, flink-jobmanager, flink-taskmanager)");
    }
}
