// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen;

import io.flowhouse.loadgen.cli.LoadgenCommand;
import io.flowhouse.loadgen.emit.DatagramEmitter;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What one {@code ./flowhouse loadgen} run does: resolved from the keys declared in {@link
 * LoadgenKeys} (defaults, a YAML file, the environment, flags).
 *
 * @param target collector to send to; null when only writing files
 * @param protocol v5, v9, ipfix or mix (exporter i speaks v5, v9, ipfix for i mod 3 = 0, 1, 2)
 * @param exporters number of simulated exporters (one socket and source port each)
 * @param unit whether {@code rate} and {@code count} are flows or datagrams
 * @param rate units per second; 0 = as fast as possible
 * @param duration run length; null when a count is given
 * @param count units to send; 0 when a duration is given
 * @param prefixes file of the prefixes hosts are drawn from ({@code AddressPool}), or null
 */
public record LoadgenOptions(
        InetSocketAddress target,
        String protocol,
        int exporters,
        DatagramEmitter.Unit unit,
        double rate,
        Duration duration,
        long count,
        long seed,
        TrafficProfile profile,
        String bindAddress,
        int sourcePortBase,
        int sendBufferBytes,
        Path pcapOut,
        Path packetsPcapOut,
        long packetFlows,
        Path summaryJson,
        boolean quiet,
        boolean requireRate,
        long startMillis,
        int replayPool,
        Path prefixes) {

    /**
     * Parses {@code args} with the shared command-line rules (and the {@code FLOWHOUSE_LOADGEN_*}
     * environment) into options; {@code nowMillis} is the default start time for files.
     *
     * @throws IllegalArgumentException ({@link io.flowhouse.config.ConfigException}) with a
     *     readable message naming the flag or key
     */
    public static LoadgenOptions parse(String[] args, long nowMillis) {
        return LoadgenCommand.options(args, nowMillis);
    }
}
