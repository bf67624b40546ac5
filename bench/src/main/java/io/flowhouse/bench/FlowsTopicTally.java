// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import io.flowhouse.loadgen.report.ExporterTotals;
import io.flowhouse.loadgen.report.RunSummary;
import io.flowhouse.schema.v1.Flow;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Flows, packets and bytes of {@code flowhouse.v1.Flow} records per exporter UDP source port, and
 * their exact comparison with what loadgen says each exporter sent. Loadgen opens new sockets every
 * step, so a port names one exporter in one step and late records never count in the wrong step.
 */
final class FlowsTopicTally {

    /** One exporter's sums. */
    static final class Sums {
        long flows;
        long packets;
        long bytes;
    }

    private final Map<Integer, Sums> byPort = new HashMap<>();
    private long undecodable;

    /**
     * Counts one record: {@code key} is the exporter (16-byte address, 2-byte port big-endian),
     * {@code value} one {@code flowhouse.v1.Flow}. A record that does not parse is counted apart.
     */
    void add(byte[] key, byte[] value) {
        Flow f;
        try {
            f = Flow.parseFrom(value);
        } catch (InvalidProtocolBufferException e) {
            undecodable++;
            return;
        }
        int port =
                key != null && key.length == 18
                        ? ((key[16] & 0xff) << 8) | (key[17] & 0xff)
                        : f.getExporterPort();
        Sums s = byPort.computeIfAbsent(port, p -> new Sums());
        s.flows++;
        s.packets += f.getPackets();
        s.bytes += f.getBytes();
    }

    long undecodable() {
        return undecodable;
    }

    /** Flows counted for the exporters of {@code ports}. */
    long flows(List<Integer> ports) {
        long n = 0;
        for (int p : ports) {
            Sums s = byPort.get(p);
            n += s == null ? 0 : s.flows;
        }
        return n;
    }

    /**
     * Exporters of {@code load} whose flows, packets or bytes on the topic differ from what loadgen
     * sent (missing, duplicated or altered records); 0 when every total matches exactly.
     */
    long mismatchedExporters(RunSummary load) {
        long bad = 0;
        for (ExporterTotals e : load.exporters()) {
            Sums s = byPort.get(port(e.source()));
            long flows = s == null ? 0 : s.flows;
            long packets = s == null ? 0 : s.packets;
            long bytes = s == null ? 0 : s.bytes;
            if (flows != e.flows() || packets != e.packets() || bytes != e.bytes()) {
                bad++;
            }
        }
        return bad;
    }

    /** The UDP source ports of {@code load}'s exporters. */
    static List<Integer> ports(RunSummary load) {
        return load.exporters().stream().map(e -> port(e.source())).toList();
    }

    /** The port of loadgen's "address:port" source; -1 when it has none. */
    static int port(String source) {
        int colon = source.lastIndexOf(':');
        if (colon < 0) {
            return -1;
        }
        try {
            return Integer.parseInt(source.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
