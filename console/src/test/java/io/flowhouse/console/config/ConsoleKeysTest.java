// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigResolver;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsoleKeysTest {

    private static ConsoleConfig resolve(String yaml, Map<String, String> env) {
        return ConsoleKeys.config(
                ConfigResolver.of(ConsoleKeys.SCHEMA).yaml(yaml, "test.yaml").env(env).resolve());
    }

    @Test
    void defaultsBindLoopbackWithoutAuth() {
        ConsoleConfig c = ConsoleKeys.defaults();
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8090);
        assertThat(c.authRequired()).isFalse();
        assertThat(c.clickhouse().user()).isEqualTo("flowhouse_console");
        assertThat(c.limits().resolutions())
                .containsExactly(Duration.ofMinutes(1), Duration.ofHours(1));
    }

    @Test
    void anotherAddressNeedsAuth() {
        assertThatThrownBy(() -> resolve("listen.host: 0.0.0.0\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not loopback");
        ConsoleConfig c =
                resolve(
                        "listen.host: 0.0.0.0\n",
                        Map.of("FLOWHOUSE_CONSOLE_AUTH_TOKEN", "0123456789abcdef0123"));
        assertThat(c.authRequired()).isTrue();
        assertThat(c.toString()).doesNotContain("0123456789abcdef0123");
        assertThat(resolve("listen.host: ::1\n", Map.of()).authRequired()).isFalse();
        assertThatThrownBy(() -> resolve("auth.user: ops\n", Map.of()))
                .hasMessageContaining("go together");
    }

    @Test
    void namesThatReachSqlOrXmlAreChecked() {
        assertThatThrownBy(() -> resolve("clickhouse.database: 'flows; DROP'\n", Map.of()))
                .hasMessageContaining("clickhouse.database");
        assertThatThrownBy(() -> resolve("clickhouse.user: 'a<b'\n", Map.of()))
                .hasMessageContaining("clickhouse.user");
        assertThatThrownBy(() -> resolve("views.resolutions: [1h, 1m]\n", Map.of()))
                .hasMessageContaining("must grow");
    }
}
