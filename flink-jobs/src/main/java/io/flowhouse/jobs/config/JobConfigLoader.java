// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.YamlParserUtils;

/**
 * Builds the job's {@link Configuration} from, in increasing precedence: defaults, a YAML ({@code
 * .yaml}/{@code .yml}, nested or flat keys) or properties file named by {@code --config FILE}, and
 * {@code --key value} flags. A flag key without the {@code flowhouse.} prefix gets it when that
 * names a flowhouse option ({@code --kafka.start earliest}); any other key is passed to Flink as is
 * ({@code --execution.checkpointing.dir file:///tmp/cp}).
 */
public final class JobConfigLoader {

    private JobConfigLoader() {}

    public static Configuration load(String[] args) {
        Map<String, String> flags = parseFlags(args);
        Map<String, String> merged = new LinkedHashMap<>();
        String file = flags.remove("config");
        if (file != null) {
            merged.putAll(readFile(Path.of(file)));
        }
        merged.putAll(flags);
        Map<String, String> normalized = new LinkedHashMap<>();
        merged.forEach((k, v) -> normalized.put(normalizeKey(k), v));
        return Configuration.fromMap(normalized);
    }

    static Map<String, String> parseFlags(String[] args) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || a.length() == 2) {
                throw new IllegalArgumentException(
                        "unexpected argument " + a + " (expected: --key value)");
            }
            String key = a.substring(2);
            int eq = key.indexOf('=');
            if (eq > 0) {
                out.put(key.substring(0, eq), key.substring(eq + 1));
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + a + " has no value");
            }
            out.put(key, args[++i]);
        }
        return out;
    }

    private static String normalizeKey(String key) {
        if (key.startsWith("flowhouse.")) {
            return key;
        }
        for (String prefix :
                List.of(
                        "kafka.",
                        "job.",
                        "decode.",
                        "clickhouse.",
                        "templates.",
                        "zmq.",
                        "ipfix.",
                        "packets.",
                        "rollup.")) {
            if (key.startsWith(prefix)) {
                return "flowhouse." + key;
            }
        }
        return key;
    }

    static Map<String, String> readFile(Path path) {
        String name = path.getFileName().toString();
        Map<String, String> out = new LinkedHashMap<>();
        try {
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                Map<String, Object> yaml = YamlParserUtils.loadYamlFile(path.toFile());
                flatten("", yaml, out);
            } else {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                    p.load(r);
                }
                for (String k : p.stringPropertyNames()) {
                    out.put(k, p.getProperty(k));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + path, e);
        } catch (Exception e) {
            throw new IllegalArgumentException(
                    "bad config file " + path + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + e.getKey();
            Object v = e.getValue();
            if (v instanceof Map<?, ?> m) {
                flatten(key + ".", m, out);
            } else if (v instanceof List<?> l) {
                StringBuilder sb = new StringBuilder();
                for (Object o : l) {
                    if (sb.length() > 0) {
                        sb.append(';');
                    }
                    sb.append(o);
                }
                out.put(key, sb.toString());
            } else if (v != null) {
                out.put(key, String.valueOf(v));
            }
        }
    }
}
