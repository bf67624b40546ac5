// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.enrich.snmp.SnmpCredential.AuthProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.PrivProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.Version;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnmpKeysTest {

    @TempDir Path dir;

    @Test
    void offUntilACredentialsFileIsSet() {
        assertThat(SnmpKeys.options(ConfigResolver.of(SnmpKeys.SCHEMA).resolve())).isNull();
    }

    @Test
    void readsTheFileAndEveryBound() throws Exception {
        Path file =
                credentials(
                        "credentials:\n"
                                + "  - cidr: 0.0.0.0/0\n"
                                + "    community: public\n"
                                + "  - cidr: 2001:db8::/32\n"
                                + "    user: flowhouse\n"
                                + "    auth-protocol: SHA-256\n"
                                + "    auth-passphrase: authpass1\n"
                                + "    priv-protocol: aes128\n"
                                + "    priv-passphrase: privpass1\n");
        SnmpOptions o =
                SnmpKeys.options(
                        ConfigResolver.of(SnmpKeys.SCHEMA)
                                .yaml(
                                        "enrich.snmp:\n"
                                                + "  credentials-file: "
                                                + file
                                                + "\n"
                                                + "  agents:\n"
                                                + "    - 192.0.2.1=198.51.100.7\n"
                                                + "    - '2001:db8::1=[2001:db8::99]:1161'\n"
                                                + "    - 192.0.2.2=198.51.100.8:10161\n"
                                                + "  port: 1161\n"
                                                + "  max-in-flight: 4\n"
                                                + "  timeout: 500ms\n"
                                                + "  retries: 3\n"
                                                + "  refresh-interval: 5m\n"
                                                + "  failed-retry-interval: 30s\n"
                                                + "  max-exporters: 100\n"
                                                + "  max-interfaces: 64\n"
                                                + "  max-string-chars: 32\n"
                                                + "  max-repetitions: 10\n",
                                        "test.yaml")
                                .resolve());
        assertThat(o.port()).isEqualTo(1161);
        assertThat(o.maxInFlight()).isEqualTo(4);
        assertThat(o.timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.retries()).isEqualTo(3);
        assertThat(o.refreshInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(o.failedRetryInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.maxExporters()).isEqualTo(100);
        assertThat(o.maxInterfaces()).isEqualTo(64);
        assertThat(o.maxStringChars()).isEqualTo(32);
        assertThat(o.maxRepetitions()).isEqualTo(10);
        assertThat(o.agentOf(InetAddress.getByName("192.0.2.1")))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 1161));
        assertThat(o.agentOf(InetAddress.getByName("192.0.2.2")))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("198.51.100.8"), 10161));
        assertThat(o.agentOf(InetAddress.getByName("2001:db8::1")))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("2001:db8::99"), 1161));
        assertThat(o.agentOf(InetAddress.getByName("192.0.2.3")))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("192.0.2.3"), 1161));

        SnmpCredential v3 = o.credentials().forExporter(InetAddress.getByName("2001:db8::5"));
        assertThat(v3.version()).isEqualTo(Version.V3);
        assertThat(v3.authProtocol()).isEqualTo(AuthProtocol.SHA256);
        assertThat(v3.privProtocol()).isEqualTo(PrivProtocol.AES);
        assertThat(v3.describe()).isEqualTo("v3 user flowhouse sha256/aes").doesNotContain("pass");
        assertThat(o.credentials().forExporter(InetAddress.getByName("203.0.113.1")).community())
                .isEqualTo("public");
        assertThat(o.credentials().forExporter(InetAddress.getByName("2001:db9::1"))).isNull();
    }

    @Test
    void mostSpecificPrefixWinsAndOfEqualOnesTheLater() throws Exception {
        SnmpCredentials c =
                new SnmpCredentials(
                        List.of(
                                SnmpCredential.v2c("10.0.0.0/8", "eight"),
                                SnmpCredential.v2c("10.1.0.0/16", "sixteen"),
                                SnmpCredential.v2c("10.1.2.3", "host"),
                                SnmpCredential.v2c("10.0.0.0/8", "eight-later"),
                                SnmpCredential.v2c("0.0.0.0/0", "any")));
        assertThat(c.forExporter(InetAddress.getByName("10.1.2.3")).community()).isEqualTo("host");
        assertThat(c.forExporter(InetAddress.getByName("10.1.9.9")).community())
                .isEqualTo("sixteen");
        assertThat(c.forExporter(InetAddress.getByName("10.2.0.1")).community())
                .isEqualTo("eight-later");
        assertThat(c.forExporter(InetAddress.getByName("192.0.2.1")).community()).isEqualTo("any");
        assertThat(c.forExporter(InetAddress.getByName("::1"))).isNull();
        assertThat(Cidr.parse("10.1.2.3/12")).isEqualTo(Cidr.parse("10.0.0.0/12"));
        assertThat(Cidr.parse("10.16.0.0/12").contains(InetAddress.getByName("10.31.255.255")))
                .isTrue();
        assertThat(Cidr.parse("10.16.0.0/12").contains(InetAddress.getByName("10.32.0.0")))
                .isFalse();
    }

    @Test
    void badFilesAndValuesNameWhatIsWrong() throws Exception {
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: 10.0.0.0/33\n    community: x\n")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("entry 1")
                .hasMessageContaining("prefix length out of range: 10.0.0.0/33");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: router.example\n    community: x\n")))
                .hasMessageContaining("not an IP prefix: router.example");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: 10.0.0.0/8\n    comunity: x\n")))
                .hasMessageContaining("unknown key 'comunity'");
        assertThatThrownBy(() -> options(credentials("credentials:\n  - cidr: 10.0.0.0/8\n")))
                .hasMessageContaining("v2c needs a community");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: 10.0.0.0/8\n    user: u\n    auth-protocol: sha\n"
                                                        + "    auth-passphrase: short\n")))
                .hasMessageContaining("auth-passphrase of at least 8 characters");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: 10.0.0.0/8\n    user: u\n    auth-protocol: sha1024\n")))
                .hasMessageContaining(
                        "'auth-protocol' is sha1024 (expected one of [none, md5, sha");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n  - cidr: 10.0.0.0/8\n    user: u\n    priv-protocol: aes\n"
                                                        + "    priv-passphrase: longenough\n")))
                .hasMessageContaining("priv needs auth");
        assertThatThrownBy(
                        () ->
                                options(
                                        credentials(
                                                "credentials:\n"
                                                        + "  - {cidr: 10.0.0.0/8, user: u, auth-protocol: sha, auth-passphrase: passphrase1}\n"
                                                        + "  - {cidr: 10.1.0.0/16, user: u, auth-protocol: sha, auth-passphrase: passphrase2}\n")))
                .hasMessageContaining("v3 user u is given twice");
        assertThatThrownBy(() -> options(credentials("communities: public\n")))
                .hasMessageContaining("unknown key 'communities'");
        assertThatThrownBy(() -> options(dir.resolve("missing.yaml")))
                .hasMessageContaining("missing.yaml: cannot read");
        Path good = credentials("credentials: [{cidr: 0.0.0.0/0, community: public}]\n");
        assertThatThrownBy(
                        () ->
                                SnmpKeys.options(
                                        ConfigResolver.of(SnmpKeys.SCHEMA)
                                                .flag(
                                                        SnmpKeys.CREDENTIALS_FILE,
                                                        good.toString(),
                                                        "--set")
                                                .flag(
                                                        SnmpKeys.REFRESH_INTERVAL,
                                                        "1000000d",
                                                        "--set")
                                                .resolve()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("enrich.snmp.refresh-interval");
        assertThatThrownBy(
                        () ->
                                SnmpKeys.options(
                                        ConfigResolver.of(SnmpKeys.SCHEMA)
                                                .flag(
                                                        SnmpKeys.CREDENTIALS_FILE,
                                                        good.toString(),
                                                        "--set")
                                                .flag(
                                                        SnmpKeys.AGENTS,
                                                        "192.0.2.1=router.example",
                                                        "--set")
                                                .resolve()))
                .hasMessageContaining(
                        "enrich.snmp.agents 192.0.2.1=router.example (expected: EXPORTER=AGENT[:PORT])");
    }

    private SnmpOptions options(Path file) {
        return SnmpKeys.options(
                ConfigResolver.of(SnmpKeys.SCHEMA)
                        .flag(SnmpKeys.CREDENTIALS_FILE, file.toString(), "--set")
                        .resolve());
    }

    private Path credentials(String yaml) throws Exception {
        Path file = Files.createTempFile(dir, "snmp", ".yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
