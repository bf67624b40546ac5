// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.InterfaceContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The interface names of the flows' exporters, as nProbe sends them to ntopng on the {@code
 * snmp-ifaces} topic: a JSON object keyed by the exporter's address, each value an object keyed by
 * ifIndex, {@code {"192.0.2.1":{"3":{"name":"xe-0/0/3","description":"transit","speed_mbps":
 * 10000}}}}. ntopng stores each top-level value whole under the exporter's key, replacing what it
 * had, so every message carries one exporter's whole set. ntopng reads {@code name}; description
 * and speed ride along.
 *
 * <p>Learned from the flows' context (names from options data, SNMP or the rules). Bounded: at most
 * {@code maxExporters} exporters and {@code maxPerExporter} interfaces each (what does not fit is
 * counted in {@link #refused()}), names and descriptions cut to {@link #MAX_TEXT_BYTES} UTF-8 bytes
 * at a character boundary, and a message holds what fits in the payload limit (the rest is counted
 * in {@link #cut()}). Used by the publisher's socket thread only.
 */
final class SnmpInterfaces {

    /** The topic ntopng dispatches on its first letter ('s') to its SNMP interface parser. */
    static final String TOPIC = "snmp-ifaces";

    /** Longest name or description sent, as the IPFIX re-export cuts them. */
    static final int MAX_TEXT_BYTES = 128;

    /** One interface as sent. */
    record Iface(String name, String description, long speedMbps) {}

    private static final class Exporter {
        final String key;
        final Map<Long, Iface> ifaces = new TreeMap<>(Long::compareUnsigned);

        Exporter(String key) {
            this.key = key;
        }
    }

    private final int maxExporters;
    private final int maxPerExporter;
    private final Map<IpAddress, Exporter> exporters = new HashMap<>();
    private final Set<Exporter> changed = new LinkedHashSet<>();
    private long refused;
    private long cut;

    SnmpInterfaces(int maxExporters, int maxPerExporter) {
        this.maxExporters = maxExporters;
        this.maxPerExporter = maxPerExporter;
    }

    /** Learns the names the context gives the flow's interfaces; null context: nothing. */
    void learn(FlowRecord f, FlowContext c) {
        if (c == null) {
            return;
        }
        learn(f.exporterAddress(), f.inputInterface(), c.in());
        if (f.outputInterface() != f.inputInterface()) {
            learn(f.exporterAddress(), f.outputInterface(), c.out());
        }
    }

    private void learn(IpAddress exporter, long ifIndex, InterfaceContext i) {
        if (i == null || i.name().isEmpty()) {
            return; // ntopng shows the name only
        }
        Exporter e = exporters.get(exporter);
        if (e == null) {
            if (exporters.size() >= maxExporters) {
                refused++;
                return;
            }
            e = new Exporter(exporter.toString());
            exporters.put(exporter, e);
        }
        Iface before = e.ifaces.get(ifIndex);
        if (before != null
                && before.speedMbps() == i.speedMbps()
                && same(before.name(), i.name())
                && same(before.description(), i.description())) {
            return;
        }
        if (before == null && e.ifaces.size() >= maxPerExporter) {
            refused++;
            return;
        }
        e.ifaces.put(ifIndex, new Iface(cut(i.name()), cut(i.description()), i.speedMbps()));
        changed.add(e);
    }

    private static boolean same(String sent, String now) {
        return sent.equals(now) || sent.equals(cut(now));
    }

    /** True when an exporter's set changed since the last {@link #changedMessages}. */
    boolean hasChanges() {
        return !changed.isEmpty();
    }

    /** One message per exporter whose set changed, which is then no longer changed. */
    List<byte[]> changedMessages(int maxBytes) {
        List<byte[]> out = new ArrayList<>(changed.size());
        for (Exporter e : changed) {
            out.add(message(e, maxBytes));
        }
        changed.clear();
        return out;
    }

    /** One message per exporter with every interface known (the periodic repeat). */
    List<byte[]> allMessages(int maxBytes) {
        List<byte[]> out = new ArrayList<>(exporters.size());
        for (Exporter e : exporters.values()) {
            out.add(message(e, maxBytes));
        }
        changed.clear();
        return out;
    }

    /** Interfaces not kept: past the exporter or per-exporter bound. */
    long refused() {
        return refused;
    }

    /** Interfaces left out of a message because it was full, counted per message. */
    long cut() {
        return cut;
    }

    int exporters() {
        return exporters.size();
    }

    private byte[] message(Exporter e, int maxBytes) {
        StringBuilder sb = new StringBuilder(256).append('{');
        ZmqJsonMessages.string(sb, e.key);
        sb.append(":{");
        int bytes = utf8Length(sb) + 2; // the closing braces
        int written = 0;
        StringBuilder entry = new StringBuilder(128);
        for (Map.Entry<Long, Iface> x : e.ifaces.entrySet()) {
            entry.setLength(0);
            if (written > 0) {
                entry.append(',');
            }
            entry.append('"').append(Long.toUnsignedString(x.getKey())).append("\":{\"name\":");
            ZmqJsonMessages.string(entry, x.getValue().name());
            entry.append(",\"description\":");
            ZmqJsonMessages.string(entry, x.getValue().description());
            entry.append(",\"speed_mbps\":").append(x.getValue().speedMbps()).append('}');
            int n = utf8Length(entry);
            if (bytes + n > maxBytes) {
                cut += e.ifaces.size() - written;
                break;
            }
            sb.append(entry);
            bytes += n;
            written++;
        }
        return sb.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static int utf8Length(CharSequence s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** {@code s} cut to at most {@link #MAX_TEXT_BYTES} UTF-8 bytes, never inside a character. */
    static String cut(String s) {
        if (s.length() * 3 <= MAX_TEXT_BYTES || utf8Length(s) <= MAX_TEXT_BYTES) {
            return s;
        }
        int n = 0;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int w = c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isHighSurrogate(c) ? 4 : 3;
            if (n + w > MAX_TEXT_BYTES) {
                break;
            }
            n += w;
            i += Character.isHighSurrogate(c) ? 2 : 1;
        }
        return s.substring(0, i);
    }
}
