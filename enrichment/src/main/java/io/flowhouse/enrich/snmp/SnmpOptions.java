// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.config.Types;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link SnmpInterfaceDirectory} is built with; checked once here. The builder starts from the
 * keys' defaults ({@link SnmpKeys}).
 */
public record SnmpOptions(
        SnmpCredentials credentials,
        Map<InetAddress, InetSocketAddress> agents,
        int port,
        int maxInFlight,
        Duration timeout,
        int retries,
        Duration refreshInterval,
        Duration failedRetryInterval,
        int maxExporters,
        int maxInterfaces,
        int maxStringChars,
        int maxRepetitions) {

    /** Longest timeout of one request. */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    /** Longest refresh or retry interval. */
    public static final Duration MAX_INTERVAL = Duration.ofDays(30);

    public SnmpOptions {
        if (credentials == null) {
            throw new IllegalArgumentException("credentials are required");
        }
        agents = Map.copyOf(agents);
        check(port >= 1 && port <= 65_535, SnmpKeys.PORT.name(), port, "1..65535");
        check(maxInFlight >= 1, SnmpKeys.MAX_IN_FLIGHT.name(), maxInFlight, ">= 1");
        check(
                positive(timeout) && timeout.compareTo(MAX_TIMEOUT) <= 0,
                SnmpKeys.TIMEOUT.name(),
                timeout,
                "> 0, <= " + Types.formatDuration(MAX_TIMEOUT));
        check(retries >= 0, SnmpKeys.RETRIES.name(), retries, ">= 0");
        check(
                positive(refreshInterval) && refreshInterval.compareTo(MAX_INTERVAL) <= 0,
                SnmpKeys.REFRESH_INTERVAL.name(),
                refreshInterval,
                "> 0, <= " + Types.formatDuration(MAX_INTERVAL));
        check(
                positive(failedRetryInterval) && failedRetryInterval.compareTo(MAX_INTERVAL) <= 0,
                SnmpKeys.FAILED_RETRY_INTERVAL.name(),
                failedRetryInterval,
                "> 0, <= " + Types.formatDuration(MAX_INTERVAL));
        check(maxExporters >= 1, SnmpKeys.MAX_EXPORTERS.name(), maxExporters, ">= 1");
        check(maxInterfaces >= 1, SnmpKeys.MAX_INTERFACES.name(), maxInterfaces, ">= 1");
        check(maxStringChars >= 1, SnmpKeys.MAX_STRING_CHARS.name(), maxStringChars, ">= 1");
        check(
                maxRepetitions >= 1 && maxRepetitions <= 1_000,
                SnmpKeys.MAX_REPETITIONS.name(),
                maxRepetitions,
                "1..1000");
    }

    public static Builder builder(SnmpCredentials credentials) {
        return new Builder(credentials);
    }

    /** Where the agent of {@code exporter} listens: its override, else the exporter on port. */
    public InetSocketAddress agentOf(InetAddress exporter) {
        InetSocketAddress agent = agents.get(exporter);
        return agent != null ? agent : new InetSocketAddress(exporter, port);
    }

    /** {@code 192.0.2.1:161}, {@code [2001:db8::1]:161}: how logs and the probe name an agent. */
    static String hostPort(InetSocketAddress agent) {
        String host = agent.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + agent.getPort();
    }

    private static boolean positive(Duration d) {
        return d != null && !d.isNegative() && !d.isZero();
    }

    private static void check(boolean ok, String key, Object value, String expected) {
        if (!ok) {
            throw new IllegalArgumentException(
                    "enrich.snmp." + key + " = " + value + " (expected: " + expected + ")");
        }
    }

    public static final class Builder {
        private final SnmpCredentials credentials;
        private final Map<InetAddress, InetSocketAddress> agents = new LinkedHashMap<>();
        private int port = SnmpKeys.PORT.defaultValue();
        private int maxInFlight = SnmpKeys.MAX_IN_FLIGHT.defaultValue();
        private Duration timeout = SnmpKeys.TIMEOUT.defaultValue();
        private int retries = SnmpKeys.RETRIES.defaultValue();
        private Duration refreshInterval = SnmpKeys.REFRESH_INTERVAL.defaultValue();
        private Duration failedRetryInterval = SnmpKeys.FAILED_RETRY_INTERVAL.defaultValue();
        private int maxExporters = SnmpKeys.MAX_EXPORTERS.defaultValue();
        private int maxInterfaces = SnmpKeys.MAX_INTERFACES.defaultValue();
        private int maxStringChars = SnmpKeys.MAX_STRING_CHARS.defaultValue();
        private int maxRepetitions = SnmpKeys.MAX_REPETITIONS.defaultValue();

        private Builder(SnmpCredentials credentials) {
            this.credentials = credentials;
        }

        public Builder agent(InetAddress exporter, InetSocketAddress agent) {
            agents.put(exporter, agent);
            return this;
        }

        public Builder port(int v) {
            port = v;
            return this;
        }

        public Builder maxInFlight(int v) {
            maxInFlight = v;
            return this;
        }

        public Builder timeout(Duration v) {
            timeout = v;
            return this;
        }

        public Builder retries(int v) {
            retries = v;
            return this;
        }

        public Builder refreshInterval(Duration v) {
            refreshInterval = v;
            return this;
        }

        public Builder failedRetryInterval(Duration v) {
            failedRetryInterval = v;
            return this;
        }

        public Builder maxExporters(int v) {
            maxExporters = v;
            return this;
        }

        public Builder maxInterfaces(int v) {
            maxInterfaces = v;
            return this;
        }

        public Builder maxStringChars(int v) {
            maxStringChars = v;
            return this;
        }

        public Builder maxRepetitions(int v) {
            maxRepetitions = v;
            return this;
        }

        public SnmpOptions build() {
            return new SnmpOptions(
                    credentials,
                    agents,
                    port,
                    maxInFlight,
                    timeout,
                    retries,
                    refreshInterval,
                    failedRetryInterval,
                    maxExporters,
                    maxInterfaces,
                    maxStringChars,
                    maxRepetitions);
        }
    }
}
