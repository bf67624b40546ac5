// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What ntopng does with the messages of the {@code snmp-ifaces} topic, step by step as its code
 * does it (ntopng commit e21c91d7, read, not copied), so a test sees the names ntopng would show:
 *
 * <ul>
 *   <li>{@code src/ZMQCollectorInterface.cpp} line 597: a message whose topic starts with {@code
 *       's'} goes to {@code parseSNMPIntefaces};
 *   <li>{@code src/ZMQParserInterface.cpp} lines 2964-3000: the payload is parsed as one JSON
 *       value; for each top-level key its value, printed back as JSON, is stored in Redis under
 *       {@code cachedexporters.<key>.ifnames}, written with {@code snprintf} into a 64-byte buffer
 *       (so the key is cut at 63 characters); a later message for the same key replaces it; a
 *       payload that is not JSON is ignored;
 *   <li>{@code scripts/lua/modules/snmp_mappings.lua} {@code get_iface_name} (lines 72-86): the
 *       stored value is decoded and the name of an interface is {@code
 *       ports[tostring(ifIndex)].name} when present.
 * </ul>
 */
final class NtopngSnmpMappings {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The Redis keys and values ntopng would hold. */
    final Map<String, String> redis = new TreeMap<>();

    /** Messages a topic starting with 's' dispatched to the parser; payloads that did not parse. */
    int dispatched;

    int unparsed;

    /** One message as ntopng's collector loop hands it on. */
    void receive(String topic, byte[] payload) {
        if (topic.isEmpty() || topic.charAt(0) != 's') {
            return;
        }
        dispatched++;
        JsonNode f;
        try {
            f = JSON.readTree(new String(payload, StandardCharsets.UTF_8));
        } catch (Exception e) {
            unparsed++;
            return;
        }
        if (f == null || !f.isObject()) {
            // json-c iterates no fields of a non-object: nothing is stored
            return;
        }
        f.fields()
                .forEachRemaining(
                        e -> {
                            String key = "cachedexporters." + e.getKey() + ".ifnames";
                            if (key.length() > 63) {
                                key = key.substring(0, 63);
                            }
                            redis.put(key, e.getValue().toString());
                        });
    }

    /** {@code snmp_mappings.get_iface_name(device, ifIndex)}: the name, or null. */
    String ifaceName(String device, long ifIndex) throws Exception {
        String rsp = redis.get("cachedexporters." + device + ".ifnames");
        if (rsp == null || rsp.isEmpty()) {
            return null;
        }
        JsonNode port = JSON.readTree(rsp).get(Long.toString(ifIndex));
        if (port == null || port.get("name") == null) {
            return null;
        }
        return port.get("name").asText();
    }

    /** Every name of {@code device}, by ifIndex (what {@code get_iface_names} returns). */
    Map<Long, String> names(String device) throws Exception {
        Map<Long, String> out = new TreeMap<>();
        String rsp = redis.get("cachedexporters." + device + ".ifnames");
        if (rsp == null) {
            return out;
        }
        JSON.readTree(rsp)
                .fields()
                .forEachRemaining(
                        e -> {
                            if (e.getValue().get("name") != null) {
                                out.put(
                                        Long.parseLong(e.getKey()),
                                        e.getValue().get("name").asText());
                            }
                        });
        return out;
    }
}
