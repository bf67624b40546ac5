// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LocalClickHouseITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @Test
    void answersQueriesAndKeepsDataAcrossStopStartAndKill() {
        LocalClickHouse ch = CLICKHOUSE.local();
        assertThat(ch.version()).matches("\\d+\\.\\d+.*");
        ch.execute("CREATE DATABASE IF NOT EXISTS t1");
        ch.execute("CREATE TABLE t1.x (a UInt32, s String) ENGINE = MergeTree ORDER BY a");
        ch.execute("INSERT INTO t1.x VALUES (1, 'one'), (2, 'two')");
        assertThat(ch.query("SELECT a, s FROM t1.x ORDER BY a"))
                .containsExactly("1\tone", "2\ttwo");

        int port = ch.httpPort();
        long firstPid = ch.pid().orElseThrow();
        ch.stop();
        assertThat(ch.isRunning()).isFalse();
        assertThatThrownBy(() -> ch.query("SELECT 1")).isInstanceOf(RuntimeException.class);

        ch.start();
        assertThat(ch.httpPort()).isEqualTo(port);
        assertThat(ch.pid().orElseThrow()).isNotEqualTo(firstPid);
        assertThat(ch.queryScalar("SELECT sum(a) FROM t1.x")).isEqualTo("3");

        ch.kill();
        ch.start();
        assertThat(ch.queryRows("SELECT a, s FROM t1.x ORDER BY a").get(1))
                .containsExactly("2", "two");
        ch.execute("DROP DATABASE t1");
    }

    @Test
    void listensOnLoopbackOnly() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        assertThat(ch.host()).isEqualTo("127.0.0.1");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", ch.nativePort()), 2000);
            assertThat(s.isConnected()).isTrue();
        }
        assertThat(
                        ch.queryScalar(
                                "SELECT value FROM system.settings WHERE name = 'max_memory_usage'"))
                .isEqualTo("4000000000");
    }

    @Test
    void reportsServerErrorsWithTheirText() {
        assertThatThrownBy(
                        () -> CLICKHOUSE.service().query("SELECT no_such_column FROM system.one"))
                .hasMessageContaining("no_such_column");
    }
}
