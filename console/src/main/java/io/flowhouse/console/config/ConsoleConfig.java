// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.config;

import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.query.ConsoleLimits;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The console's resolved configuration ({@link ConsoleKeys}).
 *
 * @param host bind address
 * @param port bind port (0: any free)
 * @param authToken bearer token, or null
 * @param authUser basic-auth user, or null
 * @param authPassword basic-auth password, or null
 * @param clickhouse where and as whom to query
 * @param limits what views may do
 * @param filterLimits bounds of one filter
 * @param kafka the dead-letter topic
 * @param threads requests served at once
 */
public record ConsoleConfig(
        String host,
        int port,
        String authToken,
        String authUser,
        String authPassword,
        ClickHouse clickhouse,
        ConsoleLimits limits,
        FilterParser.Limits filterLimits,
        Kafka kafka,
        int threads) {

    /** True when requests must authenticate. */
    public boolean authRequired() {
        return authToken != null || authUser != null;
    }

    /** This configuration on another port (tests, the demo). */
    public ConsoleConfig withPort(int newPort) {
        return new ConsoleConfig(
                host,
                newPort,
                authToken,
                authUser,
                authPassword,
                clickhouse,
                limits,
                filterLimits,
                kafka,
                threads);
    }

    @Override
    public String toString() {
        return "ConsoleConfig[" + host + ":" + port + ", clickhouse " + clickhouse.url() + "]";
    }

    /**
     * ClickHouse.
     *
     * @param url HTTP endpoint
     * @param database the job's database
     * @param user the console's (read-only) user
     * @param password its password, or null for the generated one of the local user
     * @param localUser create/refresh the user in the local services' ClickHouse
     * @param stateDir the local services' state directory
     * @param timeout per query
     * @param maxRowsToRead per query
     * @param maxResultRows per query
     * @param maxMemoryBytes per query
     */
    public record ClickHouse(
            String url,
            String database,
            String user,
            String password,
            boolean localUser,
            Path stateDir,
            Duration timeout,
            long maxRowsToRead,
            long maxResultRows,
            long maxMemoryBytes) {

        @Override
        public String toString() {
            return "ClickHouse[" + url + ", " + database + ", user " + user + "]";
        }
    }

    /**
     * The rejected topic.
     *
     * @param bootstrap brokers, empty for none
     * @param topic the dead-letter topic
     * @param maxRecords most records read per request
     * @param maxTime longest read per request
     */
    public record Kafka(String bootstrap, String topic, int maxRecords, Duration maxTime) {}
}
