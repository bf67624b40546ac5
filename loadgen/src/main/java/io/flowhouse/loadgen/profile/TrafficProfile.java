// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.profile;

import java.util.function.Consumer;

/**
 * What the simulated network and its exporters look like: the content of the flows (talkers,
 * services, address families) and how the exporters behave (sampling, template refresh, sequence
 * gaps, malformed datagrams). One immutable record with {@link #defaults()} and validation in one
 * place.
 *
 * @param ipv6Share share of flows that are IPv6 (0..1); v5 exporters send IPv4 only
 * @param clientHosts number of distinct client hosts per address family
 * @param serverHosts number of distinct server hosts per address family
 * @param talkerExponent Zipf exponent of the host popularity (1.0 to 1.2 is typical)
 * @param serviceExponent Zipf exponent of the service (port) popularity
 * @param activeTimeoutMillis longest flow duration the simulated exporters report
 * @param maxExportDelayMillis how long before export a flow may have ended
 * @param samplingInterval 1-in-N packet sampling the exporters announce; 1 = unsampled
 * @param templateRefreshDatagrams v9/IPFIX: templates (and sampling options) are resent every this
 *     many datagrams per exporter, and always in the first one
 * @param gapRatio probability that an exporter's sequence number jumps as if a datagram had been
 *     lost on the way (the datagram is never built, so totals stay exact)
 * @param malformedRatio share of datagrams that are deliberately malformed; counted apart and
 *     carrying no decodable record
 * @param maxDatagramBytes upper bound of one export datagram (1400 leaves room for IP/UDP in a 1500
 *     MTU, as real exporters do)
 * @param counterIntervalMillis sFlow: each interface's counter sample interval, ms; 0 = no counter
 *     samples
 */
public record TrafficProfile(
        double ipv6Share,
        int clientHosts,
        int serverHosts,
        double talkerExponent,
        double serviceExponent,
        long activeTimeoutMillis,
        long maxExportDelayMillis,
        int samplingInterval,
        int templateRefreshDatagrams,
        double gapRatio,
        double malformedRatio,
        int maxDatagramBytes,
        long counterIntervalMillis) {

    public TrafficProfile {
        if (counterIntervalMillis < 0) {
            throw new IllegalArgumentException(
                    "counter interval " + counterIntervalMillis + " ms (expected: >= 0)");
        }
        requireShare("ipv6Share", ipv6Share);
        requireShare("gapRatio", gapRatio);
        requireShare("malformedRatio", malformedRatio);
        if (clientHosts < 1 || clientHosts > 65_000 || serverHosts < 1 || serverHosts > 65_000) {
            throw new IllegalArgumentException(
                    "hosts " + clientHosts + "/" + serverHosts + " (expected: 1..65000)");
        }
        if (talkerExponent <= 0 || serviceExponent <= 0) {
            throw new IllegalArgumentException("Zipf exponents must be > 0");
        }
        if (activeTimeoutMillis < 1 || maxExportDelayMillis < 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (samplingInterval < 1) {
            throw new IllegalArgumentException(
                    "sampling interval " + samplingInterval + " (expected: >= 1)");
        }
        if (templateRefreshDatagrams < 1) {
            throw new IllegalArgumentException(
                    "template refresh " + templateRefreshDatagrams + " (expected: >= 1)");
        }
        if (maxDatagramBytes < 512 || maxDatagramBytes > 65_507) {
            throw new IllegalArgumentException(
                    "max datagram " + maxDatagramBytes + " bytes (expected: 512..65507)");
        }
    }

    public static TrafficProfile defaults() {
        return new TrafficProfile(
                0.3, 2_000, 500, 1.1, 1.0, 60_000L, 2_000L, 1, 20, 0.0, 0.0, 1400, 20_000L);
    }

    public TrafficProfile withIpv6Share(double v) {
        return with(d -> d.ipv6Share = v);
    }

    public TrafficProfile withSamplingInterval(int v) {
        return with(d -> d.samplingInterval = v);
    }

    public TrafficProfile withTemplateRefreshDatagrams(int v) {
        return with(d -> d.templateRefreshDatagrams = v);
    }

    public TrafficProfile withGapRatio(double v) {
        return with(d -> d.gapRatio = v);
    }

    public TrafficProfile withMalformedRatio(double v) {
        return with(d -> d.malformedRatio = v);
    }

    public TrafficProfile withMaxDatagramBytes(int v) {
        return with(d -> d.maxDatagramBytes = v);
    }

    public TrafficProfile withCounterIntervalMillis(long v) {
        return with(d -> d.counterIntervalMillis = v);
    }

    private static void requireShare(String name, double v) {
        if (!(v >= 0.0 && v <= 1.0)) {
            throw new IllegalArgumentException(name + " " + v + " (expected: 0..1)");
        }
    }

    /** A copy with the values {@code change} sets, through the canonical constructor's checks. */
    private TrafficProfile with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** The values of a TrafficProfile while some change. */
    private static final class Draft {
        double ipv6Share;
        int clientHosts;
        int serverHosts;
        double talkerExponent;
        double serviceExponent;
        long activeTimeoutMillis;
        long maxExportDelayMillis;
        int samplingInterval;
        int templateRefreshDatagrams;
        double gapRatio;
        double malformedRatio;
        int maxDatagramBytes;
        long counterIntervalMillis;

        Draft(TrafficProfile v) {
            ipv6Share = v.ipv6Share;
            clientHosts = v.clientHosts;
            serverHosts = v.serverHosts;
            talkerExponent = v.talkerExponent;
            serviceExponent = v.serviceExponent;
            activeTimeoutMillis = v.activeTimeoutMillis;
            maxExportDelayMillis = v.maxExportDelayMillis;
            samplingInterval = v.samplingInterval;
            templateRefreshDatagrams = v.templateRefreshDatagrams;
            gapRatio = v.gapRatio;
            malformedRatio = v.malformedRatio;
            maxDatagramBytes = v.maxDatagramBytes;
            counterIntervalMillis = v.counterIntervalMillis;
        }

        TrafficProfile build() {
            return new TrafficProfile(
                    ipv6Share,
                    clientHosts,
                    serverHosts,
                    talkerExponent,
                    serviceExponent,
                    activeTimeoutMillis,
                    maxExportDelayMillis,
                    samplingInterval,
                    templateRefreshDatagrams,
                    gapRatio,
                    malformedRatio,
                    maxDatagramBytes,
                    counterIntervalMillis);
        }
    }
}
