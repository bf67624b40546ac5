// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Wireshark's decode of a NetFlow/IPFIX capture ({@code tshark -T json}), record by record. */
final class TsharkCflow {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TsharkCflow() {}

    /**
     * Every record of every frame, in order: the "Flow n" (v9/IPFIX, data and options records
     * alike) and "pdu n/m" (v5) objects under the frame's cflow layer.
     */
    static List<List<JsonNode>> records(Path pcap) throws Exception {
        String json =
                ExternalTool.run(
                        300,
                        "tshark",
                        "-r",
                        pcap.toString(),
                        "-T",
                        "json",
                        "-d",
                        "udp.port==2055,cflow",
                        "-d",
                        "udp.port==4739,cflow");
        List<List<JsonNode>> frames = new ArrayList<>();
        for (JsonNode frame : readKeepingFirstDuplicate(json)) {
            List<JsonNode> records = new ArrayList<>();
            collect(frame.path("_source").path("layers").path("cflow"), records);
            frames.add(records);
        }
        return frames;
    }

    private static void collect(JsonNode node, List<JsonNode> out) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isObject()) {
                continue;
            }
            if (e.getKey().startsWith("Flow ") || e.getKey().startsWith("pdu ")) {
                out.add(e.getValue());
            } else if (e.getKey().startsWith("Set ") || e.getKey().startsWith("FlowSet ")) {
                collect(e.getValue(), out);
            }
        }
    }

    /** A field's text, or null when the record has none. */
    static String text(JsonNode record, String field) {
        JsonNode n = record.get(field);
        return n == null ? null : n.asText();
    }

    /**
     * Parses JSON keeping the first of duplicate keys: tshark repeats a field name for the RFC 5103
     * reverse element (e.g. {@code cflow.octets64} twice), and the forward one comes first.
     */
    static JsonNode readKeepingFirstDuplicate(String json) throws IOException {
        try (JsonParser p = JSON.getFactory().createParser(json)) {
            p.nextToken();
            return read(p);
        }
    }

    private static JsonNode read(JsonParser p) throws IOException {
        JsonNodeFactory f = JSON.getNodeFactory();
        switch (p.currentToken()) {
            case START_OBJECT:
                ObjectNode o = f.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    JsonNode v = read(p);
                    if (!o.has(name)) {
                        o.set(name, v);
                    }
                }
                return o;
            case START_ARRAY:
                ArrayNode a = f.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    a.add(read(p));
                }
                return a;
            default:
                return f.textNode(p.getText());
        }
    }
}
