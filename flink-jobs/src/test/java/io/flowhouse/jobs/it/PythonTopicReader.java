// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The independent reader of the decoded-flows topic: {@code flow-schema/src/test/python/
 * topic_totals.py} (kafka-python with {@code read_committed}, Python's protobuf runtime with the
 * published {@code .proto} files), in a venv under this module's {@code target/} made from the
 * pinned {@code requirements.txt} on first use.
 */
final class PythonTopicReader {

    /** One exporter's totals as the Python reader summed them; distinct ids -1 when not counted. */
    record Totals(long records, long packets, long bytes, long distinctIds) {}

    private static final Path PYTHON_DIR = root().resolve("flow-schema/src/test/python");
    private static final Path SCHEMA_DIR = root().resolve("flow-schema/src/main/proto");
    private static final Path VENV = Path.of("target/python-venv").toAbsolutePath();

    private PythonTopicReader() {}

    private static Path root() {
        return Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath();
    }

    /**
     * Reads the whole topic (read_committed) and returns the totals by exporter {@code ip:port}.
     */
    static Map<String, Totals> read(String bootstrap, String topic, String format, Path tmp)
            throws Exception {
        Map<String, Totals> byExporter = new TreeMap<>();
        for (String[] f : lines(bootstrap, topic, format, tmp, 5)) {
            byExporter.put(
                    f[0],
                    new Totals(
                            Long.parseLong(f[1]),
                            Long.parseLong(f[2]),
                            Long.parseLong(f[3]),
                            f[4].equals("-") ? -1 : Long.parseLong(f[4])));
        }
        return byExporter;
    }

    /**
     * The reader's {@code --sflow} lines (flowhouse format) by exporter {@code ip:port}: records,
     * packets, bytes, distinct ids, packets and bytes times sampling_rate, the smallest and largest
     * rate, records with sFlow fields, distinct agents and distinct samples.
     */
    static Map<String, List<Long>> readSflow(String bootstrap, String topic, Path tmp)
            throws Exception {
        Map<String, List<Long>> byExporter = new TreeMap<>();
        for (String[] f : lines(bootstrap, topic, "flowhouse", tmp, 12, "--sflow")) {
            List<Long> v = new ArrayList<>();
            for (int i = 1; i < f.length; i++) {
                v.add(Long.parseLong(f[i]));
            }
            byExporter.put(f[0], v);
        }
        return byExporter;
    }

    /**
     * The reader's {@code --context} lines (flowhouse format), one per record, each a map from the
     * {@code .proto} field name to its value as Python prints it: {@code src_addr}, {@code
     * dst_addr}, {@code src_as}, {@code dst_as} and the context fields (the script's {@code
     * CONTEXT_FIELDS}, given here in the same order).
     */
    static List<Map<String, String>> readContext(
            String bootstrap, String topic, Path tmp, List<String> contextFields) throws Exception {
        return context(contextFields, rawLines(bootstrap, topic, "flowhouse", tmp, "--context"));
    }

    /**
     * As {@link #readContext}, with the named {@code .proto} fields instead of the script's context
     * fields.
     */
    static List<Map<String, String>> readFields(
            String bootstrap, String topic, Path tmp, List<String> fields) throws Exception {
        return context(
                fields,
                rawLines(
                        bootstrap,
                        topic,
                        "flowhouse",
                        tmp,
                        "--context",
                        "--fields",
                        String.join(",", fields)));
    }

    private static List<Map<String, String>> context(List<String> fields, List<String> lines) {
        List<String> names = new ArrayList<>(List.of("src_addr", "dst_addr", "src_as", "dst_as"));
        names.addAll(fields);
        List<Map<String, String>> records = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            assertThat(f).as("line of topic_totals.py --context: " + line).hasSize(names.size());
            Map<String, String> r = new TreeMap<>();
            for (int i = 0; i < f.length; i++) {
                r.put(names.get(i), f[i]);
            }
            records.add(r);
        }
        return records;
    }

    private static List<String[]> lines(
            String bootstrap, String topic, String format, Path tmp, int columns, String... extra)
            throws Exception {
        List<String[]> lines = new ArrayList<>();
        for (String line : rawLines(bootstrap, topic, format, tmp, extra)) {
            String[] f = line.strip().split(" ");
            assertThat(f).as("line of topic_totals.py: " + line).hasSize(columns);
            lines.add(f);
        }
        return lines;
    }

    private static List<String> rawLines(
            String bootstrap, String topic, String format, Path tmp, String... extra)
            throws Exception {
        Path protoc =
                ServiceRequirement.requireExecutable("protoc", "apt-get install protobuf-compiler");
        Path python = venvPython();
        Path descriptors = tmp.resolve("flow-schema.pb");
        run(
                List.of(
                        protoc.toString(),
                        "-I" + SCHEMA_DIR,
                        "--include_imports",
                        "--descriptor_set_out=" + descriptors,
                        "flowhouse/v1/flow.proto",
                        "goflow2/flow.proto"),
                tmp.resolve("protoc.out"));
        Path out = tmp.resolve("topic-totals-" + format + ".txt");
        run(
                List.of(
                        python.toString(),
                        PYTHON_DIR.resolve("topic_totals.py").toString(),
                        "--bootstrap",
                        bootstrap,
                        "--topic",
                        topic,
                        "--format",
                        format,
                        "--descriptor-set",
                        descriptors.toString()),
                out,
                extra);
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    /** The venv's python, made (once per requirements.txt content) with python3 -m venv + pip. */
    private static synchronized Path venvPython() throws Exception {
        Path python3 =
                ServiceRequirement.requireExecutable(
                        "python3", "apt-get install python3 python3-venv");
        Path python = VENV.resolve("bin/python");
        Path stamp = VENV.resolve("requirements.installed");
        Path requirements = PYTHON_DIR.resolve("requirements.txt");
        String wanted = Files.readString(requirements, StandardCharsets.UTF_8);
        if (Files.isExecutable(python)
                && Files.exists(stamp)
                && Files.readString(stamp, StandardCharsets.UTF_8).equals(wanted)) {
            return python;
        }
        Files.createDirectories(VENV.getParent());
        Path log = VENV.getParent().resolve("python-venv.log");
        run(List.of(python3.toString(), "-m", "venv", "--clear", VENV.toString()), log);
        run(
                List.of(
                        python.toString(),
                        "-m",
                        "pip",
                        "install",
                        "--disable-pip-version-check",
                        "-q",
                        "-r",
                        requirements.toString()),
                log);
        Files.writeString(stamp, wanted, StandardCharsets.UTF_8);
        return python;
    }

    private static void run(List<String> command, Path out, String... extra)
            throws IOException, InterruptedException {
        if (extra.length > 0) {
            command = new ArrayList<>(command);
            command.addAll(List.of(extra));
        }
        Path err = Files.createTempFile("python-topic-reader", ".err");
        try {
            Process p =
                    new ProcessBuilder(command)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            boolean done = p.waitFor(10, TimeUnit.MINUTES);
            if (!done) {
                p.destroyForcibly();
            }
            assertThat(done && p.exitValue() == 0)
                    .as(
                            String.join(" ", command)
                                    + " failed: "
                                    + Files.readString(err, StandardCharsets.UTF_8))
                    .isTrue();
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
