// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.config.Config;
import io.flowhouse.sinks.ipfix.IpfixExporterKeys;
import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import io.flowhouse.sinks.zmq.ZmqSinkKeys;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;

/**
 * The optional fan-out of the decoded flows, each on only when its switch key is set: the ntopng
 * ZMQ publisher ({@value ZmqSinkOptions#ENDPOINT_KEY}) and the IPFIX re-export ({@value
 * IpfixExporterOptions#TARGETS_KEY}). Both are at-most-once, like the protocols they speak.
 *
 * @param zmq the ZMQ publisher, or null when off
 * @param ipfix the IPFIX exporter, or null when off
 */
public record FanOutSettings(ZmqSinkOptions zmq, IpfixExporterOptions ipfix) {

    /** Neither sink. */
    public static final FanOutSettings NONE = new FanOutSettings(null, null);

    /**
     * Reads the {@code zmq.*} and {@code ipfix.*} keys.
     *
     * @throws io.flowhouse.config.ConfigException naming the first bad key
     */
    public static FanOutSettings from(Config config) {
        return new FanOutSettings(ZmqSinkKeys.options(config), IpfixExporterKeys.options(config));
    }
}
