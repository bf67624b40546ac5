// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.flowhouse.enrich.snmp.SnmpCredential.AuthProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.PrivProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.Version;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The credentials of every exporter, chosen by CIDR: the most specific prefix that holds the
 * exporter wins, and of equal prefixes the later entry. Read from a YAML file (secrets stay out of
 * flags and the environment):
 *
 * <pre>
 * credentials:
 *   - cidr: 0.0.0.0/0
 *     community: public
 *   - cidr: 192.0.2.0/24
 *     user: flowhouse
 *     auth-protocol: sha          # md5, sha, sha224, sha256, sha384, sha512
 *     auth-passphrase: ...
 *     priv-protocol: aes          # des, aes (128), aes192, aes256
 *     priv-passphrase: ...
 * </pre>
 */
public final class SnmpCredentials {

    private static final Set<String> FIELDS =
            Set.of(
                    "cidr",
                    "version",
                    "community",
                    "user",
                    "auth-protocol",
                    "auth-passphrase",
                    "priv-protocol",
                    "priv-passphrase");

    private final List<SnmpCredential> entries;

    public SnmpCredentials(List<SnmpCredential> entries) {
        this.entries = List.copyOf(entries);
        // One USM user table serves every agent: a name must mean one set of keys.
        Map<String, SnmpCredential> users = new HashMap<>();
        for (SnmpCredential c : this.entries) {
            if (c.version() != Version.V3) {
                continue;
            }
            SnmpCredential other = users.putIfAbsent(c.user(), c);
            if (other != null && !sameKeys(other, c)) {
                throw new IllegalArgumentException(
                        "v3 user "
                                + c.user()
                                + " is given twice with different protocols or passphrases ("
                                + other.cidr()
                                + ", "
                                + c.cidr()
                                + ")");
            }
        }
    }

    public List<SnmpCredential> entries() {
        return entries;
    }

    /** The most specific entry holding {@code exporter}, or null when none does. */
    public SnmpCredential forExporter(InetAddress exporter) {
        SnmpCredential best = null;
        for (SnmpCredential c : entries) {
            if (c.cidr().contains(exporter)
                    && (best == null || c.cidr().prefixLength() >= best.cidr().prefixLength())) {
                best = c;
            }
        }
        return best;
    }

    /**
     * Reads the file.
     *
     * @throws IllegalArgumentException naming the file, the entry and what is wrong
     */
    public static SnmpCredentials load(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "SNMP credentials " + file + ": cannot read: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(
                    "SNMP credentials " + file + ": expected a map with 'credentials'");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!name.equals("credentials")) {
                throw new IllegalArgumentException(
                        "SNMP credentials " + file + ": unknown key '" + name + "'");
            }
        }
        JsonNode list = root.get("credentials");
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException(
                    "SNMP credentials " + file + ": 'credentials' must be a list");
        }
        List<SnmpCredential> entries = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            try {
                entries.add(entry(list.get(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "SNMP credentials " + file + ", entry " + (i + 1) + ": " + e.getMessage(),
                        e);
            }
        }
        try {
            return new SnmpCredentials(entries);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "SNMP credentials " + file + ": " + e.getMessage(), e);
        }
    }

    private static SnmpCredential entry(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("expected a map");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("unknown key '" + name + "'");
            }
        }
        String cidr = text(node, "cidr");
        if (cidr == null) {
            throw new IllegalArgumentException("'cidr' is required");
        }
        String community = text(node, "community");
        String user = text(node, "user");
        String versionText = text(node, "version");
        Version version;
        if (versionText != null) {
            version = word(Version.class, versionText, "version");
        } else {
            version = user != null ? Version.V3 : Version.V2C;
        }
        String auth = text(node, "auth-protocol");
        String priv = text(node, "priv-protocol");
        return new SnmpCredential(
                Cidr.parse(cidr),
                version,
                community,
                user,
                auth == null ? null : word(AuthProtocol.class, auth, "auth-protocol"),
                text(node, "auth-passphrase"),
                priv == null ? null : word(PrivProtocol.class, priv, "priv-protocol"),
                text(node, "priv-passphrase"));
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            throw new IllegalArgumentException("'" + field + "' must be a single value");
        }
        return v.asText();
    }

    private static <E extends Enum<E>> E word(Class<E> type, String text, String field) {
        String normalized = text.trim().toUpperCase(Locale.ROOT).replace("-", "");
        if (normalized.equals("AES128")) {
            normalized = "AES";
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(normalized)) {
                return e;
            }
        }
        List<String> words = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            words.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(
                "'" + field + "' is " + text + " (expected one of " + words + ")");
    }

    private static boolean sameKeys(SnmpCredential a, SnmpCredential b) {
        return a.authProtocol() == b.authProtocol()
                && a.privProtocol() == b.privProtocol()
                && java.util.Objects.equals(a.authPassphrase(), b.authPassphrase())
                && java.util.Objects.equals(a.privPassphrase(), b.privPassphrase());
    }
}
