// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every document of {@code kubernetes/*.yaml} against the schema its kind is published with,
 * strictly (an unknown field is an error, as {@code kubectl apply --validate=strict} makes it):
 * {@code FlinkDeployment} against the {@code openAPIV3Schema} of the CRD in the Flink Kubernetes
 * Operator's API artifact (Maven Central), with networknt's validator; the Kubernetes kinds, and
 * the FlinkDeployment's pod template as a Pod, with {@code kubernetes-validate} (PyPI, which ships
 * Kubernetes' JSON schemas) for the oldest and the newest Kubernetes the manifests are for. Both
 * come from the package registries only: no cluster, no other download.
 */
class KubernetesManifestsTest {

    private static final Path MANIFESTS = Path.of("kubernetes").toAbsolutePath();
    private static final Path REQUIREMENTS =
            Path.of("src/test/python/requirements.txt").toAbsolutePath();
    private static final Path VENV = Path.of("target/python-venv").toAbsolutePath();
    private static final String CRD = "META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml";
    private static final List<String> KUBERNETES = List.of("1.28.0", "1.37.0");
    private static final List<String> FLINK_2 = List.of("v2_0", "v2_1", "v2_2");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @TempDir Path tmp;

    @Test
    void everyManifestMatchesItsPublishedSchema() throws Exception {
        List<JsonNode> documents = documents();
        TreeSet<String> kinds = new TreeSet<>();
        documents.forEach(d -> kinds.add(d.path("kind").asText()));
        assertThat(kinds)
                .containsExactlyInAnyOrder(
                        "Namespace",
                        "Service",
                        "StatefulSet",
                        "Job",
                        "DaemonSet",
                        "PersistentVolumeClaim",
                        "FlinkDeployment");

        List<String> errors = new ArrayList<>();
        List<JsonNode> core = new ArrayList<>();
        for (JsonNode d : documents) {
            if ("FlinkDeployment".equals(d.path("kind").asText())) {
                errors.addAll(validateFlinkDeployment(d));
                core.add(podOf(d));
            } else {
                core.add(d);
            }
        }
        for (String version : KUBERNETES) {
            errors.addAll(validateKubernetes(core, version));
        }
        assertThat(errors).as("schema violations").isEmpty();
    }

    @Test
    void mistakesAreCaught() throws Exception {
        JsonNode deployment =
                documents().stream()
                        .filter(d -> "FlinkDeployment".equals(d.path("kind").asText()))
                        .findFirst()
                        .orElseThrow();
        ObjectNode wrong = deployment.deepCopy();
        ((ObjectNode) wrong.path("spec").path("job")).put("upgradeMode", "sometimes");
        ((ObjectNode) wrong.path("spec")).put("paralelism", 4);
        assertThat(String.join("\n", validateFlinkDeployment(wrong)))
                .contains("upgradeMode")
                .contains("paralelism");

        JsonNode agent =
                documents().stream()
                        .filter(d -> "DaemonSet".equals(d.path("kind").asText()))
                        .findFirst()
                        .orElseThrow();
        ObjectNode typo = agent.deepCopy();
        ((ObjectNode) typo.path("spec").path("template").path("spec")).put("hostNetwrk", true);
        ObjectNode badType = agent.deepCopy();
        ((ObjectNode) badType.path("spec").path("template").path("spec")).put("hostNetwork", "yes");
        assertThat(validateKubernetes(List.of(typo), KUBERNETES.get(0)))
                .anySatisfy(e -> assertThat(e).contains("hostNetwrk"));
        assertThat(validateKubernetes(List.of(badType), KUBERNETES.get(0)))
                .anySatisfy(e -> assertThat(e).contains("hostNetwork"));
    }

    /** Every YAML document of every manifest file. */
    private static List<JsonNode> documents() throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(MANIFESTS, "*.yaml")) {
            s.forEach(files::add);
        }
        files.sort(null);
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            try (var it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
                while (it.hasNext()) {
                    JsonNode d = (JsonNode) it.next();
                    if (d != null && !d.isNull() && !d.isMissingNode()) {
                        documents.add(d);
                    }
                }
            }
        }
        return documents;
    }

    /** Violations of the operator's CRD schema, for the document's API version. */
    private static List<String> validateFlinkDeployment(JsonNode d) throws IOException {
        String version = d.path("apiVersion").asText().replaceFirst(".*/", "");
        JsonNode crd;
        try (InputStream in =
                KubernetesManifestsTest.class.getClassLoader().getResourceAsStream(CRD)) {
            assertThat(in).as(CRD + " in flink-kubernetes-operator-api").isNotNull();
            crd = YAML.readTree(in);
        }
        JsonNode schema = null;
        for (JsonNode v : crd.path("spec").path("versions")) {
            if (version.equals(v.path("name").asText())) {
                schema = v.path("schema").path("openAPIV3Schema");
            }
        }
        assertThat(schema).as("the CRD's schema for " + version).isNotNull();
        ObjectNode strict = schema.deepCopy();
        // The API server checks these itself; the CRD's schema leaves them out.
        ObjectNode root = (ObjectNode) strict.path("properties");
        root.putObject("apiVersion").put("type", "string");
        root.putObject("kind").put("type", "string");
        root.putObject("metadata").put("type", "object");
        strict(strict);
        widenFlinkVersions(strict);
        JsonSchema s = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(strict);
        List<String> errors = new ArrayList<>();
        for (ValidationMessage m : s.validate(d)) {
            errors.add("FlinkDeployment " + d.path("metadata").path("name").asText() + ": " + m);
        }
        return errors;
    }

    /**
     * What the API server does for a CRD on a strict apply: an object schema with properties and
     * neither {@code additionalProperties} nor {@code x-kubernetes-preserve-unknown-fields} takes
     * no other field.
     */
    private static void strict(JsonNode node) {
        if (node instanceof ObjectNode o) {
            if (o.has("properties")
                    && !o.has("additionalProperties")
                    && !o.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
                o.put("additionalProperties", false);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("properties")) {
                    e.getValue().forEach(KubernetesManifestsTest::strict);
                } else if (e.getValue().isContainerNode()) {
                    strict(e.getValue());
                }
            }
        } else if (node instanceof ArrayNode a) {
            a.forEach(KubernetesManifestsTest::strict);
        }
    }

    /**
     * The one change to the published schema: operator 1.10's CRD (the newest the registry serves
     * here) lists Flink versions up to 1.20, and this job runs on Flink 2.2; later operator
     * releases add the 2.x names in the same form. Every other field is checked as published.
     */
    private static void widenFlinkVersions(ObjectNode schema) {
        JsonNode e = schema.path("properties").path("spec").path("properties").path("flinkVersion");
        assertThat(e.path("enum").isArray()).as("flinkVersion is an enum").isTrue();
        ArrayNode values = (ArrayNode) e.path("enum");
        for (String v : FLINK_2) {
            if (!values.toString().contains('"' + v + '"')) {
                values.add(v);
            }
        }
    }

    /** The FlinkDeployment's pod template as the Pod it becomes (the operator fills the image). */
    private static JsonNode podOf(JsonNode deployment) {
        ObjectNode pod = deployment.path("spec").path("podTemplate").deepCopy();
        assertThat(pod.path("kind").asText()).isEqualTo("Pod");
        for (JsonNode c : pod.path("spec").path("containers")) {
            ((ObjectNode) c).put("image", deployment.path("spec").path("image").asText());
        }
        return pod;
    }

    /** Violations reported by {@code kubernetes-validate --strict} for one Kubernetes version. */
    private List<String> validateKubernetes(List<JsonNode> documents, String version)
            throws Exception {
        Path file = Files.createTempFile(tmp, "manifests-", ".yaml");
        StringBuilder text = new StringBuilder();
        for (JsonNode d : documents) {
            text.append("---\n").append(YAML.writeValueAsString(d).replaceFirst("^---\n", ""));
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Path out = tmp.resolve("kubernetes-validate-" + version + ".txt");
        int code =
                run(
                        List.of(
                                venv().resolve("bin/kubernetes-validate").toString(),
                                "--strict",
                                "--no-warn",
                                "-k",
                                version,
                                file.toString()),
                        out);
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        List<String> errors = new ArrayList<>();
        int passed = 0;
        for (String line : lines) {
            if (line.startsWith("INFO") && line.contains(" passed for resource ")) {
                passed++;
            } else if (!line.isBlank()) {
                errors.add("kubernetes " + version + ": " + line);
            }
        }
        if (code != 0 && errors.isEmpty()) {
            errors.add("kubernetes-validate exited with " + code + ": " + lines);
        }
        if (errors.isEmpty()) {
            assertThat(passed)
                    .as("documents kubernetes-validate passed")
                    .isEqualTo(documents.size());
        }
        return errors;
    }

    /** A venv with the pinned kubernetes-validate, made once per requirements.txt content. */
    private static synchronized Path venv() throws Exception {
        Path stamp = VENV.resolve("requirements.installed");
        String wanted = Files.readString(REQUIREMENTS, StandardCharsets.UTF_8);
        if (Files.isExecutable(VENV.resolve("bin/kubernetes-validate"))
                && Files.exists(stamp)
                && Files.readString(stamp, StandardCharsets.UTF_8).equals(wanted)) {
            return VENV;
        }
        Files.createDirectories(VENV.getParent());
        Path log = VENV.getParent().resolve("python-venv.log");
        assertThat(run(List.of("python3", "-m", "venv", "--clear", VENV.toString()), log))
                .as("python3 -m venv (apt-get install python3-venv): " + Files.readString(log))
                .isZero();
        assertThat(
                        run(
                                List.of(
                                        VENV.resolve("bin/pip").toString(),
                                        "install",
                                        "--quiet",
                                        "--disable-pip-version-check",
                                        "-r",
                                        REQUIREMENTS.toString()),
                                log))
                .as("pip install -r " + REQUIREMENTS + ": " + Files.readString(log))
                .isZero();
        Files.writeString(stamp, wanted, StandardCharsets.UTF_8);
        return VENV;
    }

    private static int run(List<String> command, Path output) throws Exception {
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish");
        }
        return p.exitValue();
    }
}
