// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The optional fan-out of the decoded flows, each on only when its switch key is set: the ntopng
 * ZMQ publisher ({@value ZmqSinkOptions#ENDPOINT_KEY}) and the IPFIX re-export ({@value
 * IpfixExporterOptions#TARGETS_KEY}, comma-separated; a YAML list is accepted too). Both are
 * at-most-once, like the protocols they speak.
 *
 * @param zmq the ZMQ publisher, or null when off
 * @param ipfix the IPFIX exporter, or null when off
 */
public record FanOutSettings(ZmqSinkOptions zmq, IpfixExporterOptions ipfix) {

    /** Neither sink. */
    public static final FanOutSettings NONE = new FanOutSettings(null, null);

    /**
     * Reads the {@code flowhouse.zmq.*} and {@code flowhouse.ipfix.*} keys of a flat configuration
     * (other keys are ignored).
     *
     * @throws IllegalArgumentException naming the first bad key
     */
    public static FanOutSettings from(Map<String, String> config) {
        Map<String, String> flat = new LinkedHashMap<>(config);
        // JobConfigLoader joins a YAML list with ';'; the sinks split on ','.
        flat.computeIfPresent(IpfixExporterOptions.TARGETS_KEY, (k, v) -> v.replace(';', ','));
        return new FanOutSettings(
                ZmqSinkOptions.fromConfig(flat), IpfixExporterOptions.fromConfig(flat));
    }
}
