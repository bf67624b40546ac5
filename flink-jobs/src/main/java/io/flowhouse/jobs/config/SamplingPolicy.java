// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which sampling rate a flow carries. Counters are stored as the exporter sent them; queries scale
 * by {@code sampling_rate}. Precedence: a configured per-exporter override (address:port, then
 * address), then the rate the exporter announced (options data, v5 header), then the default.
 *
 * @param defaultRate rate for exporters that announce nothing (1 = unsampled)
 * @param overrides rates by {@code address} or {@code address|port}, addresses in {@link
 *     IpAddress#toString()} form
 */
public record SamplingPolicy(long defaultRate, Map<String, Long> overrides)
        implements Serializable {

    public SamplingPolicy {
        if (defaultRate < 1) {
            throw new IllegalArgumentException(
                    "default sampling rate " + defaultRate + " (expected: >= 1)");
        }
        overrides = Map.copyOf(overrides);
    }

    public static SamplingPolicy unsampled() {
        return new SamplingPolicy(1L, Map.of());
    }

    /**
     * Parses entries {@code ADDRESS=RATE} or {@code [ADDRESS]:PORT=RATE} (IPv4 may omit the
     * brackets: {@code 192.0.2.1:2055=10}).
     */
    public static SamplingPolicy parse(long defaultRate, List<String> entries) {
        Map<String, Long> m = new HashMap<>();
        for (String raw : entries) {
            String e = raw.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.lastIndexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "sampling override " + e + " (expected: ADDRESS[:PORT]=RATE)");
            }
            String target = e.substring(0, eq).trim();
            long rate;
            try {
                rate = Long.parseLong(e.substring(eq + 1).trim());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(
                        "sampling override " + e + " has a bad rate (expected: integer >= 1)", ex);
            }
            if (rate < 1) {
                throw new IllegalArgumentException(
                        "sampling override " + e + " has rate " + rate + " (expected: >= 1)");
            }
            m.put(parseTarget(target, e), rate);
        }
        return new SamplingPolicy(defaultRate, m);
    }

    private static String parseTarget(String target, String entry) {
        String addr = target;
        Integer port = null;
        if (target.startsWith("[")) {
            int close = target.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("sampling override " + entry + ": missing ]");
            }
            addr = target.substring(1, close);
            if (close + 1 < target.length()) {
                if (target.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException(
                            "sampling override " + entry + " (expected: [ADDRESS]:PORT=RATE)");
                }
                port = Integer.parseInt(target.substring(close + 2));
            }
        } else if (target.indexOf(':') >= 0 && target.indexOf(':') == target.lastIndexOf(':')) {
            int c = target.indexOf(':');
            addr = target.substring(0, c);
            port = Integer.parseInt(target.substring(c + 1));
        }
        String a = IpAddress.parse(addr).toString();
        if (port != null && (port < 0 || port > 65_535)) {
            throw new IllegalArgumentException(
                    "sampling override " + entry + " has port " + port + " (expected: 0..65535)");
        }
        return port == null ? a : a + "|" + port;
    }

    /**
     * The rate for one flow.
     *
     * @param exporter the exporter address
     * @param port the exporter's UDP source port
     * @param announced the rate the exporter announced, or 0 when it announced none
     */
    public long rateFor(IpAddress exporter, int port, long announced) {
        return rateFor(overrideFor(new ExporterKey(exporter, port)), announced);
    }

    /**
     * The configured override for an exporter (address and port, then address), or 0 when there is
     * none: looked up once per datagram, not per flow.
     */
    public long overrideFor(ExporterKey exporter) {
        if (overrides.isEmpty()) {
            return 0L;
        }
        String a = exporter.address().toString();
        Long o = overrides.get(a + "|" + exporter.port());
        if (o == null) {
            o = overrides.get(a);
        }
        return o == null ? 0L : o;
    }

    /**
     * The rate for one flow.
     *
     * @param override the exporter's {@link #overrideFor override}, or 0
     * @param announced the rate the exporter announced, or 0 when it announced none
     */
    public long rateFor(long override, long announced) {
        if (override > 0) {
            return override;
        }
        return announced >= 1 ? announced : defaultRate;
    }
}
