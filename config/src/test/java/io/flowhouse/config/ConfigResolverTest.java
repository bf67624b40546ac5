// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigResolverTest {

    enum Mode {
        FAST,
        SAFE
    }

    static final Key<Long> BUFFER =
            Key.of("udp.receive-buffer", Types.size(64 * 1024, Long.MAX_VALUE))
                    .defaultValue(32L << 20)
                    .doc("SO_RCVBUF asked of the kernel.");
    static final Key<Integer> SOCKETS =
            Key.of("udp.sockets", Types.integer(1, 64))
                    .defaultComputed(() -> 3, "number of cores")
                    .doc("Sockets per address.");
    static final Key<List<HostPort>> LISTEN =
            Key.of("udp.listen", Types.list(Types.HOST_PORT))
                    .defaultValue(List.of(new HostPort("::", 2055)))
                    .doc("Addresses.")
                    .flag("--listen", "HOST:PORT");
    static final Key<List<String>> ALLOW =
            Key.of("udp.allowed", Types.list(Types.CIDR)).defaultValue(List.of()).doc("CIDRs.");
    static final Key<Duration> LINGER =
            Key.of("kafka.linger-ms", Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null))
                    .defaultValue(Duration.ofMillis(5))
                    .doc("Linger.");
    static final Key<Map<String, String>> PROPS =
            Key.of("kafka.properties", Types.PROPERTIES).defaultValue(Map.of()).doc("Extra.");
    static final Key<Mode> MODE =
            Key.of("mode", Types.enumOf(Mode.class)).defaultValue(Mode.SAFE).doc("Mode.");
    static final Key<String> PASSWORD =
            Key.of("kafka.password", Types.STRING).doc("Password.").secret();
    static final Key<String> NAME =
            Key.of("name", Types.STRING)
                    .defaultValue("a")
                    .check(s -> !s.isBlank(), "a name")
                    .doc("Name.");

    static final ConfigSchema SCHEMA =
            ConfigSchema.of(
                    "flowhouse.test",
                    "test",
                    List.of(BUFFER, SOCKETS, LISTEN, ALLOW, LINGER, PROPS, MODE, PASSWORD, NAME));

    @Test
    void defaultsThenFileThenEnvironmentThenFlags() {
        Config c =
                ConfigResolver.of(SCHEMA)
                        .flag("udp.sockets", "9", "--set")
                        .env(
                                Map.of(
                                        "FLOWHOUSE_TEST_UDP_SOCKETS", "7",
                                        "FLOWHOUSE_TEST_MODE", "fast",
                                        "UNRELATED", "x"))
                        .yaml(
                                String.join(
                                        "\n",
                                        "udp:",
                                        "  receive-buffer: 8MiB",
                                        "  sockets: 5",
                                        "kafka.linger-ms: 20",
                                        "kafka:",
                                        "  properties:",
                                        "    client.rack: r1",
                                        "    acks: all",
                                        "flowhouse.test.name: b"),
                                "t.yaml")
                        .resolve();
        assertThat(c.get(BUFFER)).isEqualTo(8L << 20);
        assertThat(c.get(SOCKETS)).isEqualTo(9);
        assertThat(c.origin(SOCKETS)).isEqualTo("--set");
        assertThat(c.get(MODE)).isEqualTo(Mode.FAST);
        assertThat(c.origin(MODE)).isEqualTo("env FLOWHOUSE_TEST_MODE");
        assertThat(c.get(LINGER)).isEqualTo(Duration.ofMillis(20));
        assertThat(c.get(PROPS)).containsEntry("client.rack", "r1").containsEntry("acks", "all");
        assertThat(c.get(NAME)).isEqualTo("b");
        assertThat(c.get(LISTEN)).containsExactly(new HostPort("::", 2055));
        assertThat(c.get(PASSWORD)).isNull();
        assertThat(c.isSet(LISTEN)).isFalse();
    }

    @Test
    void fullyNestedRootAndComputedDefaults() {
        Config c =
                ConfigResolver.of(SCHEMA)
                        .yaml(
                                "flowhouse:\n  test:\n    udp:\n      listen: ['[::1]:9', ':7']\n",
                                "f")
                        .resolve();
        assertThat(c.get(LISTEN)).containsExactly(new HostPort("::1", 9), new HostPort("", 7));
        assertThat(c.get(SOCKETS)).isEqualTo(3);
    }

    @Test
    void propertiesMergeAcrossLayers() {
        Config c =
                ConfigResolver.of(SCHEMA)
                        .yaml("kafka.properties.client.rack: r1\n", "f")
                        .env(Map.of("FLOWHOUSE_TEST_KAFKA_PROPERTIES", "acks=1"))
                        .flag("kafka.properties.linger.ms", "3", "--set")
                        .resolve();
        assertThat(c.get(PROPS))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("client.rack", "r1", "acks", "1", "linger.ms", "3"));
    }

    @Test
    void mistakesNameTheKeyAndTheSource() {
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).yaml("udp:\n  listn: []\n", "a.yaml"))
                .hasMessageContaining("unknown key udp.listn in a.yaml");
        assertThatThrownBy(
                        () ->
                                ConfigResolver.of(SCHEMA)
                                        .yaml("udp.sockets: 70\n", "a.yaml")
                                        .resolve())
                .hasMessage("config udp.sockets = 70 (expected: 1..64), from a.yaml");
        assertThatThrownBy(
                        () ->
                                ConfigResolver.of(SCHEMA)
                                        .flag(ALLOW, "10.0.0.0/40", "--allow")
                                        .resolve())
                .hasMessageContaining("prefix length 40 (expected: 0..32)")
                .hasMessageContaining("udp.allowed")
                .hasMessageContaining("--allow");
        assertThatThrownBy(
                        () ->
                                ConfigResolver.of(SCHEMA)
                                        .env(Map.of("FLOWHOUSE_TEST_MODE", "slow"))
                                        .resolve())
                .hasMessage(
                        "config mode = slow (expected: fast, safe), from env FLOWHOUSE_TEST_MODE");
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).flag("nope", "1", "--set"))
                .hasMessageContaining("unknown key nope");
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).flag("name", " ", "--set").resolve())
                .hasMessageContaining("(expected: a name)");
        assertThatThrownBy(
                        () ->
                                ConfigResolver.of(SCHEMA)
                                        .yaml("udp.receive-buffer: 1KiB\n", "f")
                                        .resolve())
                .hasMessageContaining("udp.receive-buffer = 1KiB (expected: 64KiB..)");
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).yaml("- a\n", "f"))
                .hasMessageContaining("expected a mapping");
    }

    @Test
    void secretsComeFromFileOrEnvironmentAndAreNeverShown(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).flag("kafka.password", "pw", "--set"))
                .hasMessageContaining("is a secret")
                .hasMessageContaining("FLOWHOUSE_TEST_KAFKA_PASSWORD")
                .hasMessageNotContaining("pw,");
        Path secret = dir.resolve("pw");
        Files.writeString(secret, "s3cret\n");
        Config c =
                ConfigResolver.of(SCHEMA)
                        .env(Map.of("FLOWHOUSE_TEST_KAFKA_PASSWORD_FILE", secret.toString()))
                        .resolve();
        assertThat(c.get(PASSWORD)).isEqualTo("s3cret");
        assertThat(String.join("\n", c.describe()))
                .contains("kafka.password = ******  # env FLOWHOUSE_TEST_KAFKA_PASSWORD_FILE")
                .doesNotContain("s3cret");
        assertThat(
                        ConfigResolver.of(SCHEMA)
                                .yaml("kafka:\n  password: fromfile\n", "f")
                                .resolve()
                                .get(PASSWORD))
                .isEqualTo("fromfile");
        assertThatThrownBy(() -> Key.of("x", Types.STRING).secret().flag("--x", "X"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void envNamesComeFromTheKey() {
        assertThat(SCHEMA.envName(BUFFER)).isEqualTo("FLOWHOUSE_TEST_UDP_RECEIVE_BUFFER");
        assertThat(SCHEMA.fullName(BUFFER)).isEqualTo("flowhouse.test.udp.receive-buffer");
        assertThatThrownBy(() -> Key.of("Bad_Name", Types.STRING))
                .hasMessageContaining("kebab-case");
    }

    @Test
    void typedValues() {
        assertThat(Types.size(0, Long.MAX_VALUE).parse("32MiB")).isEqualTo(32L << 20);
        assertThat(Types.size(0, Long.MAX_VALUE).parse("1_048_576")).isEqualTo(1L << 20);
        assertThat(Types.formatSize(64L << 20)).isEqualTo("64MiB");
        assertThat(Types.formatSize(1000)).isEqualTo("1000");
        var d = Types.duration(ChronoUnit.SECONDS, Duration.ofMillis(1), null);
        assertThat(d.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(d.parse("1.5")).isEqualTo(Duration.ofMillis(1500));
        assertThat(d.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(d.parse("5 min")).isEqualTo(Duration.ofMinutes(5));
        assertThat(d.parse("10 secs")).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.parse("250 millis")).isEqualTo(Duration.ofMillis(250));
        assertThat(d.parse("2 hours")).isEqualTo(Duration.ofHours(2));
        assertThat(d.parse("1 day")).isEqualTo(Duration.ofDays(1));
        assertThatThrownBy(() -> d.parse("5 weeks")).hasMessageContaining("expected: 500ms");
        assertThat(Types.formatDuration(Duration.ofSeconds(120))).isEqualTo("2m");
        assertThatThrownBy(() -> d.parse("0s")).hasMessageContaining("(expected: 1ms..)");
        assertThat(HostPort.parse("[2001:db8::1]:4739"))
                .isEqualTo(new HostPort("2001:db8::1", 4739));
        assertThat(new HostPort("2001:db8::1", 4739).toString()).isEqualTo("[2001:db8::1]:4739");
        assertThatThrownBy(() -> HostPort.parse("a:b:c"))
                .hasMessageContaining("expected: HOST:PORT");
        assertThat(Types.list(Types.CIDR).parse("10.0.0.0/8, 2001:db8::/32"))
                .containsExactly("10.0.0.0/8", "2001:db8::/32");
        assertThat(Types.list(d).parse("1m;5m;1h"))
                .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofHours(1));
        assertThat(Types.list(Types.CIDR).parse("[]")).isEmpty();
        assertThatThrownBy(() -> Types.CIDR.parse("300.0.0.1")).hasMessageContaining("bad address");
        assertThat(Types.oneOf("v5", "ipfix").parse("IPFIX")).isEqualTo("ipfix");
        assertThatThrownBy(() -> Types.BOOLEAN.parse("yes"))
                .hasMessage("(expected: true or false)");
    }

    @Test
    void foreignKeysPassThroughWhenAsked() {
        Config c =
                ConfigResolver.of(SCHEMA)
                        .passThroughForeignKeys()
                        .yaml(
                                "execution:\n  checkpointing:\n    dir: file:///tmp/cp\n"
                                        + "pipeline.jars: [a.jar, b.jar]\nmode: fast\n",
                                "job.yaml")
                        .flag("state.backend.type", "rocksdb", "--state.backend.type")
                        .resolve();
        assertThat(c.get(MODE)).isEqualTo(Mode.FAST);
        assertThat(c.foreign())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "execution.checkpointing.dir", "file:///tmp/cp",
                                "pipeline.jars", "a.jar;b.jar",
                                "state.backend.type", "rocksdb"));
        // Names under the schema's own sections are still checked.
        assertThatThrownBy(
                        () ->
                                ConfigResolver.of(SCHEMA)
                                        .passThroughForeignKeys()
                                        .yaml("udp:\n  listn: []\n", "job.yaml"))
                .hasMessageContaining("unknown key udp.listn");
        assertThat(ConfigResolver.of(SCHEMA).resolve().foreign()).isEmpty();
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).yaml("execution.x: 1\n", "f"))
                .hasMessageContaining("unknown key execution.x");
    }

    @Test
    void twoKeysCannotShareAnEnvironmentVariable() {
        assertThatThrownBy(
                        () ->
                                ConfigSchema.of(
                                        "flowhouse.x",
                                        "x",
                                        List.of(
                                                Key.of("kafka.port", Types.STRING),
                                                Key.of("kafka-port", Types.STRING))))
                .hasMessageContaining("share FLOWHOUSE_X_KAFKA_PORT");
    }

    @Test
    void propertiesFilesAndEnvironmentAliases(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(
                file,
                "flowhouse.test.udp.sockets=6\nudp.listen=:1;:2\nkafka.properties.acks=all\n");
        Key<Integer> port =
                Key.of("kafka-port", Types.integer(1, 65_535))
                        .defaultValue(9092)
                        .doc("Port.")
                        .env("FLOWHOUSE_KAFKA_PORT");
        ConfigSchema schema = ConfigSchema.of("flowhouse.test", "test", List.of(SOCKETS, port));
        assertThat(schema.envName(port)).isEqualTo("FLOWHOUSE_KAFKA_PORT");
        Config c =
                ConfigResolver.of(SCHEMA)
                        .file(file)
                        .env(Map.of("FLOWHOUSE_TEST_NAME", "b"))
                        .resolve();
        assertThat(c.get(SOCKETS)).isEqualTo(6);
        assertThat(c.get(LISTEN)).containsExactly(new HostPort("", 1), new HostPort("", 2));
        assertThat(c.get(PROPS)).containsEntry("acks", "all");
        assertThat(c.get(NAME)).isEqualTo("b");
        Config aliased =
                ConfigResolver.of(schema)
                        .env(
                                Map.of(
                                        "FLOWHOUSE_KAFKA_PORT",
                                        "19092",
                                        "FLOWHOUSE_TEST_KAFKA_PORT",
                                        "1"))
                        .resolve();
        assertThat(aliased.get(port)).isEqualTo(19092);
        assertThat(aliased.origin(port)).isEqualTo("env FLOWHOUSE_KAFKA_PORT");
        Files.writeString(file, "udp.sockets=99\n");
        assertThatThrownBy(() -> ConfigResolver.of(SCHEMA).file(file).resolve())
                .hasMessage("config udp.sockets = 99 (expected: 1..64), from " + file);
    }

    @Test
    void durationsReadIsoToo() {
        ValueType<Duration> d = Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
        assertThat(d.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThat(d.parse("pt2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(d.parse("250")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> d.parse("PT-1S")).hasMessageContaining("expected: 0s..");
        assertThatThrownBy(() -> d.parse("Pfoo")).hasMessageContaining("PT30S");
    }

    @Test
    void recordedValuesBeatTheEnvironmentButNotFlagsAndBlankVariablesAreUnset() {
        Config c =
                ConfigResolver.of(SCHEMA)
                        .env(Map.of("FLOWHOUSE_TEST_UDP_SOCKETS", "7", "FLOWHOUSE_TEST_NAME", " "))
                        .flag(MODE, "fast", "--mode")
                        .recorded(SOCKETS, "9", "saved state")
                        .recorded(MODE, "safe", "saved state")
                        .resolve();
        assertThat(c.get(SOCKETS)).isEqualTo(9);
        assertThat(c.origin(SOCKETS)).isEqualTo("saved state");
        assertThat(c.get(MODE)).isEqualTo(Mode.FAST);
        assertThat(c.get(NAME)).isEqualTo("a");
    }
}
