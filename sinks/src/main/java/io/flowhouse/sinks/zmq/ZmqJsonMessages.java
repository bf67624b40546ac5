// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.nio.charset.StandardCharsets;

/**
 * The JSON bodies of the non-flow topics: {@code template} (the fields flows carry) and {@code
 * event} (probe statistics and, above all, the timeouts ntopng ages collected flows with; see
 * {@code ZMQParserInterface::parseEvent}). Hand-written JSON: a handful of known keys whose string
 * values are escaped here.
 */
final class ZmqJsonMessages {

    private ZmqJsonMessages() {}

    /** A snapshot of what the publisher has done, reported in each event. */
    record EventStats(
            long timeSeconds,
            long flowsExported,
            long bytes,
            long packets,
            long flowsDropped,
            long bytesPerSecond,
            long packetsPerSecond) {}

    /** The {@code template} message: a JSON array with one object per field. */
    static byte[] template() {
        StringBuilder sb = new StringBuilder(4096).append('[');
        NprobeField[] fields = NprobeField.values();
        for (int i = 0; i < fields.length; i++) {
            NprobeField f = fields[i];
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"PEN\":0,\"field\":").append(f.id());
            sb.append(",\"len\":").append(f.length());
            sb.append(",\"format\":");
            string(sb, f.format());
            sb.append(",\"name\":");
            string(sb, f.name());
            sb.append(",\"descr\":");
            string(sb, f.description());
            sb.append('}');
        }
        return sb.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The periodic {@code event} message. */
    static byte[] event(ZmqSinkOptions o, long sourceId, String uuid, EventStats s) {
        StringBuilder sb = new StringBuilder(768);
        sb.append("{\"time\":").append(s.timeSeconds());
        sb.append(",\"bytes\":").append(Long.toUnsignedString(s.bytes()));
        sb.append(",\"packets\":").append(Long.toUnsignedString(s.packets()));
        sb.append(",\"packet_drops\":0");
        sb.append(",\"iface\":{\"name\":");
        string(sb, o.probeName());
        sb.append(",\"speed\":0}");
        sb.append(",\"probe\":{\"version\":");
        string(sb, o.probeName());
        sb.append(",\"uuid\":");
        string(sb, uuid);
        sb.append(",\"unique_source_id\":").append(sourceId);
        sb.append(",\"osname\":");
        string(sb, System.getProperty("os.name", "unknown"));
        sb.append('}');
        sb.append(",\"avg\":{\"bps\":").append(s.bytesPerSecond());
        sb.append(",\"pps\":").append(s.packetsPerSecond()).append('}');
        sb.append(",\"timeout\":{\"lifetime\":").append(o.lifetimeTimeoutSeconds());
        sb.append(",\"idle\":").append(o.idleTimeoutSeconds());
        sb.append(",\"collected_lifetime\":").append(o.collectedLifetimeSeconds()).append('}');
        sb.append(",\"drops\":{\"export_queue_full\":").append(s.flowsDropped());
        sb.append(",\"too_many_flows\":0,\"flow_collection_drops\":0}");
        sb.append(",\"zmq\":{\"num_flow_exports\":").append(s.flowsExported());
        sb.append(",\"num_zmq_exporters\":1}}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Appends {@code s} as a JSON string. */
    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
