// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import java.util.Locale;

/** The export protocols a simulated exporter can speak. */
public enum ExportProtocol {
    V5(5, 2055),
    V9(9, 2055),
    IPFIX(10, 4739),
    /** sFlow v5: its header's 32-bit version is 5; 105 is how the codec and tables name it. */
    SFLOW(105, 6343);

    private final int version;
    private final int defaultPort;

    ExportProtocol(int version, int defaultPort) {
        this.version = version;
        this.defaultPort = defaultPort;
    }

    /** The version number in the message header (IPFIX is 10). */
    public int version() {
        return version;
    }

    /**
     * The collector port exporters use by default (2055 for NetFlow, 4739 IANA for IPFIX, 6343 IANA
     * for sFlow).
     */
    public int defaultPort() {
        return defaultPort;
    }

    public boolean carriesIpv6() {
        return this != V5;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ExportProtocol parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "v5", "5", "netflow5" -> V5;
            case "v9", "9", "netflow9" -> V9;
            case "ipfix", "10", "v10" -> IPFIX;
            case "sflow", "sflow5", "105" -> SFLOW;
            default ->
                    throw new IllegalArgumentException(
                            "unknown protocol " + s + " (expected: v5, v9, ipfix, sflow)");
        };
    }
}
