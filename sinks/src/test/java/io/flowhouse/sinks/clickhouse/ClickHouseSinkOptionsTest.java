// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.ServerException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClickHouseSinkOptionsTest {

    @Test
    void defaultsAreSane() {
        ClickHouseSinkOptions o = ClickHouseSinkOptions.defaults();
        assertThat(o.database()).isEqualTo("flowhouse");
        assertThat(o.batchMaxRows()).isEqualTo(100_000);
        assertThat(o.flushInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.startupTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(o.toBuilder().build()).isEqualTo(o);
    }

    @Test
    void passwordIsNeverInToString() {
        ClickHouseSinkOptions o = ClickHouseSinkOptions.builder().password("s3cret!").build();
        assertThat(o.toString()).doesNotContain("s3cret!").contains("password=***");
        assertThat(o.resolvePassword()).isEqualTo("s3cret!");
    }

    @Test
    void passwordFromASecretFile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("pw");
        Files.writeString(f, "from-file\n");
        ClickHouseSinkOptions o =
                ClickHouseSinkOptions.builder().passwordFile(f.toString()).build();
        assertThat(o.resolvePassword()).isEqualTo("from-file");
        assertThat(o.toString()).doesNotContain("from-file");
    }

    @Test
    void unsetPasswordVariableIsAnError() {
        ClickHouseSinkOptions o =
                ClickHouseSinkOptions.builder()
                        .passwordEnv("FLOWHOUSE_TEST_SURELY_UNSET_VAR")
                        .build();
        assertThatThrownBy(o::resolvePassword)
                .hasMessageContaining("FLOWHOUSE_TEST_SURELY_UNSET_VAR");
    }

    @Test
    void validation() {
        assertThatThrownBy(() -> ClickHouseSinkOptions.builder().url("tcp://x").build())
                .hasMessageContaining("expected: http");
        assertThatThrownBy(() -> ClickHouseSinkOptions.builder().database("a.b").build())
                .hasMessageContaining("database");
        assertThatThrownBy(() -> ClickHouseSinkOptions.builder().batchMaxRows(0).build())
                .hasMessageContaining("batchMaxRows 0");
        assertThatThrownBy(
                        () ->
                                ClickHouseSinkOptions.builder()
                                        .startupTimeout(Duration.ofSeconds(-1))
                                        .build())
                .hasMessageContaining("negative duration");
    }

    @Test
    void errorClassification() {
        assertThat(
                        ClickHouseErrors.isRetriable(
                                new ConnectionInitiationException(
                                        "refused", new ConnectException())))
                .isTrue();
        assertThat(
                        ClickHouseErrors.isRetriable(
                                new ServerException(252, "Code: 252. Too many parts", 500, "q")))
                .isTrue();
        // 18.16 sends no code header: the code is read from the text.
        ServerException noHeader =
                new ServerException(
                        0,
                        "Code: 33, e.displayText() = DB::Exception: Cannot read all data",
                        500,
                        "q");
        assertThat(ClickHouseErrors.serverCode(noHeader)).isEqualTo(33);
        assertThat(ClickHouseErrors.isRetriable(noHeader)).isFalse();
        assertThat(
                        ClickHouseErrors.isRetriable(
                                new ServerException(
                                        0, "Code: 60. Table x doesn't exist", 404, "q")))
                .isFalse();
        assertThat(ClickHouseErrors.isRetriable(new ServerException(0, "bad gateway", 502, "q")))
                .isTrue();
        assertThat(ClickHouseErrors.isRetriable(new IllegalArgumentException("bug"))).isFalse();
    }
}
