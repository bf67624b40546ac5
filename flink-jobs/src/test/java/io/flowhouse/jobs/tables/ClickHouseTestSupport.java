// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.sinks.clickhouse.ClickHouseMigrations;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared helpers for the ClickHouse ITCases. */
public final class ClickHouseTestSupport {

    /** The job's migrations with the default retention (30 days of flows, 400 of stats). */
    public static final ClickHouseMigrations SCHEMA = JobSchema.migrations(30, 400);

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private ClickHouseTestSupport() {}

    /** A database name no other test in this JVM uses. */
    public static String freshDatabase(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    }

    /** Options pointing at the test server, with fast retries. */
    public static ClickHouseSinkOptions.Builder options(ClickHouseService ch, String database) {
        return ClickHouseSinkOptions.builder()
                .url(ch.httpUrl())
                .user(ch.user())
                .password(ch.password())
                .database(database)
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(2));
    }

    /**
     * A deterministic flow for index {@code i}: exporter 192.0.2.(1 + i % 3), sequence i / 10,
     * record index i % 10; every fourth flow is IPv6; bytes 1000 + i, packets 1 + i % 7.
     */
    public static FlowRecord flow(long i) {
        boolean v6 = i % 4 == 3;
        long t = 1_705_320_000_000L + i * 7; // 2024-01-15T12:00:00Z onwards
        return FlowRecord.builder()
                .version(i % 2 == 0 ? 9 : 10)
                .exporterAddress(IpAddress.parse("192.0.2." + (1 + i % 3)))
                .exporterPort(2055)
                .observationDomainId(7)
                .sequenceNumber(i / 10)
                .recordIndex((int) (i % 10))
                .exportTimeMillis(t + 1000)
                .timeReceivedMillis(t + 1500)
                .flowStartMillis(t - 60_000)
                .flowEndMillis(t)
                .ipVersion(v6 ? 6 : 4)
                .srcAddr(
                        v6
                                ? IpAddress.parse("2001:db8::" + Long.toHexString(i % 65536))
                                : IpAddress.parse("198.51.100." + (i % 250)))
                .dstAddr(v6 ? IpAddress.parse("2001:db8:1::1") : IpAddress.parse("203.0.113.7"))
                .srcPort((int) (1024 + i % 60000))
                .dstPort(443)
                .protocol(6)
                .tcpFlags(0x1b)
                .tos(0)
                .bytes(1000 + i)
                .packets(1 + i % 7)
                .inputInterface(1 + i % 4)
                .outputInterface(10)
                .vlanId(i % 3 == 0 ? 100 : 0)
                .srcAs(64512)
                .dstAs(64513)
                .samplingRate(1)
                .build();
    }
}
