// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.cli.JobArgs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job's configuration: layered sources, the command line's forms, Flink's keys passed on. */
class JobConfigTest {

    @TempDir Path dir;

    @Test
    void defaultsParse() {
        PipelineSettings s = PipelineSettings.from(JobArgs.resolve(Map.of()), Map.of());
        assertThat(s.rawTopic()).isEqualTo("flows.raw");
        assertThat(s.start()).isEqualTo(StartPosition.parse("committed"));
        assertThat(s.decode().scopeMode()).isEqualTo(TemplateScopeMode.ADDRESS_AND_PORT);
        assertThat(s.clickhouse().toSinkOptions().passwordEnv()).isEmpty();
        assertThat(s.clickhouse().toSinkOptions().resolvePassword()).isEmpty();
        assertThat(s.clickhouse().toSinkOptions().startupTimeout())
                .isEqualTo(Duration.ofMinutes(5));
        PipelineSettings withEnv =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of()), Map.of(ClickHouseSettings.PASSWORD_ENV, "x"));
        assertThat(withEnv.clickhouse().toSinkOptions().passwordEnv())
                .isEqualTo(ClickHouseSettings.PASSWORD_ENV);
        assertThat(s.maxParallelism()).isEqualTo(128);
    }

    @Test
    void yamlFileThenFlagsWin() throws Exception {
        Path yaml = dir.resolve("job.yaml");
        Files.writeString(
                yaml,
                String.join(
                        "\n",
                        "flowhouse:",
                        "  kafka:",
                        "    bootstrap-servers: 127.0.0.1:19092",
                        "    start: earliest",
                        "  decode:",
                        "    template-hold-time: 5 s",
                        "    template-scope: address-only",
                        "    sampling:",
                        "      default-rate: 10",
                        "      overrides:",
                        "        - 192.0.2.1=1000",
                        "        - '[2001:db8::1]:2055=100'",
                        "execution.checkpointing.dir: file:///tmp/cp",
                        ""),
                StandardCharsets.UTF_8);
        Config conf =
                JobArgs.resolve(
                        Map.of("FLOWHOUSE_CLICKHOUSE_USER", "flows"),
                        new String[] {
                            "--config",
                            yaml.toString(),
                            "--kafka.start",
                            "timestamp:1700000000000",
                            "--clickhouse.startup-timeout",
                            "30 s"
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        assertThat(s.bootstrapServers()).isEqualTo("127.0.0.1:19092");
        assertThat(s.start().mode()).isEqualTo(StartPosition.Mode.TIMESTAMP);
        assertThat(s.start().timestampMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(s.decode().templateHold()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.decode().scopeMode()).isEqualTo(TemplateScopeMode.ADDRESS_ONLY);
        assertThat(s.clickhouse().user()).isEqualTo("flows");
        assertThat(s.clickhouse().toSinkOptions().startupTimeout())
                .isEqualTo(Duration.ofSeconds(30));
        SamplingPolicy p = s.decode().sampling();
        assertThat(p.rateFor(IpAddress.parse("192.0.2.1"), 9999, 0)).isEqualTo(1000);
        assertThat(p.rateFor(IpAddress.parse("2001:db8::1"), 2055, 512)).isEqualTo(100);
        assertThat(p.rateFor(IpAddress.parse("2001:db8::1"), 2056, 512)).isEqualTo(512);
        assertThat(p.rateFor(IpAddress.parse("198.51.100.7"), 2055, 0)).isEqualTo(10);
        assertThat(JobArgs.flinkConfiguration(conf).toMap())
                .containsEntry("execution.checkpointing.dir", "file:///tmp/cp");
    }

    @Test
    void propertiesFileAndPasswordFile() throws Exception {
        Path pw = dir.resolve("pw");
        Files.writeString(pw, "s3cret\n", StandardCharsets.UTF_8);
        Path props = dir.resolve("job.properties");
        Files.writeString(
                props,
                "flowhouse.clickhouse.password-file=" + pw + "\nflowhouse.job.parallelism=3\n",
                StandardCharsets.UTF_8);
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), new String[] {"--config=" + props}), Map.of());
        assertThat(s.clickhouse().toSinkOptions().resolvePassword()).isEqualTo("s3cret");
        assertThat(s.clickhouse().toSinkOptions().toString()).doesNotContain("s3cret");
        assertThat(s.parallelism()).isEqualTo(3);
    }

    @Test
    void badValuesAreRefusedWithTheExpectation() {
        assertThatThrownBy(() -> StartPosition.parse("yesterday"))
                .hasMessageContaining("expected: earliest, latest, committed");
        assertThatThrownBy(() -> SamplingPolicy.parse(1, java.util.List.of("192.0.2.1=0")))
                .hasMessageContaining("expected: >= 1");
        assertThatThrownBy(() -> JobArgs.resolve(Map.of(), new String[] {"--kafka.start"}))
                .hasMessageContaining("has no value");
        assertThatThrownBy(
                        () ->
                                PipelineSettings.from(
                                        JobArgs.resolve(
                                                Map.of(),
                                                new String[] {"--job.parallelism", "500"}),
                                        Map.of()))
                .hasMessageContaining("expected: 0 for the cluster default");
    }

    @Test
    void theSharedCommandLineRules() {
        Config c =
                JobArgs.resolve(
                        Map.of("FLOWHOUSE_KAFKA_GROUP_ID", "from-env", "FLOWHOUSE_JOB_NAME", ""),
                        "--set",
                        "kafka.start=latest",
                        "--flowhouse.job.parallelism=2",
                        "--state.backend.type",
                        "rocksdb");
        PipelineSettings s = PipelineSettings.from(c, Map.of());
        assertThat(s.start().mode()).isEqualTo(StartPosition.Mode.LATEST);
        assertThat(s.parallelism()).isEqualTo(2);
        assertThat(s.groupId()).isEqualTo("from-env");
        // A blank variable counts as unset.
        assertThat(s.jobName()).isEqualTo("flowhouse-pipeline");
        assertThat(c.foreign()).containsExactly(Map.entry("state.backend.type", "rocksdb"));
        // A misspelt key under the job's sections fails instead of leaving the default.
        assertThatThrownBy(() -> JobArgs.resolve(Map.of(), "--kafka.strat", "earliest"))
                .hasMessageContaining("unknown key kafka.strat");
        assertThatThrownBy(() -> JobArgs.resolve(Map.of(), "--kafka.start", "yesterday"))
                .hasMessageContaining("expected: earliest, latest, committed");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream print = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
        assertThat(JobArgs.resolve(Map.of(), print, "--help")).isNull();
        assertThat(JobArgs.resolve(Map.of(), print, "--print-config", "--kafka.start=earliest"))
                .isNull();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("usage: flowhouse job")
                .contains("--KEY VALUE")
                .contains("kafka.start = earliest  # --kafka.start");
    }

    @Test
    void theReadmesKafkaSecurityExampleReads() throws Exception {
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("```yaml\n# job.yaml");
        String yaml = readme.substring(start + 8, readme.indexOf("```", start + 8));
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), "--config", file.toString()), Map.of());
        assertThat(s.bootstrapServers()).isEqualTo("broker1:9093");
        assertThat(s.kafkaProperties())
                .containsEntry("config.providers", "file")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(
                        "ssl.truststore.password",
                        "${file:/etc/flowhouse/kafka.secret:truststore.password}");
    }

    @Test
    void decodeStateBoundsParseAndAreChecked() {
        DecodeStateLimits d =
                PipelineSettings.from(JobArgs.resolve(Map.of()), Map.of()).decode().stateLimits();
        assertThat(d).isEqualTo(DecodeStateLimits.defaults());
        DecodeStateLimits s =
                PipelineSettings.from(
                                JobArgs.resolve(
                                        Map.of(),
                                        new String[] {
                                            "--decode.state.max-bytes-per-exporter", "65536",
                                            "--decode.state.max-bytes", "1048576",
                                            "--decode.state.max-scopes-per-exporter", "8",
                                            "--decode.template-hold-max-bytes", "32768",
                                            "--decode.template-lifetime", "10 min",
                                            "--decode.exporter-idle-timeout", "20 min",
                                            "--templates.archive-max-record-bytes", "100000",
                                            "--decode.stats.scope-idle-timeout", "5 min",
                                            "--decode.stats.max-scopes-per-exporter", "4",
                                            "--decode.stats.max-sflow-sources", "16"
                                        }),
                                Map.of())
                        .decode()
                        .stateLimits();
        assertThat(s)
                .isEqualTo(
                        new DecodeStateLimits(
                                65_536,
                                1_048_576,
                                8,
                                32_768,
                                Duration.ofMinutes(10),
                                Duration.ofMinutes(20),
                                100_000,
                                Duration.ofMinutes(5),
                                4,
                                16));
        assertThatThrownBy(
                        () ->
                                PipelineSettings.from(
                                        JobArgs.resolve(
                                                Map.of(),
                                                new String[] {"--decode.state.max-bytes", "1024"}),
                                        Map.of()))
                .hasMessageContaining("expected: >= max bytes per exporter");
        assertThatThrownBy(
                        () ->
                                PipelineSettings.from(
                                        JobArgs.resolve(
                                                Map.of(),
                                                new String[] {
                                                    "--decode.template-lifetime", "10 ms"
                                                }),
                                        Map.of()))
                .hasMessageContaining("expected: >= 1 s");
    }
}
