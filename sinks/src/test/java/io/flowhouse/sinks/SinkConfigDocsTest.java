// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.ipfix.IpfixExporterKeys;
import io.flowhouse.sinks.kafka.FlowsTopicKeys;
import io.flowhouse.sinks.zmq.ZmqSinkKeys;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The sinks' key tables are generated from their declarations. When this fails, regenerate: {@code
 * mvn test -pl sinks -Dtest=SinkConfigDocsTest -Dconfig.docs.update=true}.
 */
class SinkConfigDocsTest {

    @Test
    void clickhouseKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README-clickhouse.md"),
                                ClickHouseSinkKeys.SCHEMA,
                                "clickhouse",
                                ClickHouseSinkKeys.KEYS))
                .isNull();
    }

    @Test
    void zmqKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README-zmq-ipfix.md"),
                                ZmqSinkKeys.SCHEMA,
                                "zmq",
                                ZmqSinkKeys.KEYS))
                .isNull();
    }

    @Test
    void ipfixKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README-zmq-ipfix.md"),
                                IpfixExporterKeys.SCHEMA,
                                "ipfix",
                                IpfixExporterKeys.KEYS))
                .isNull();
    }

    @Test
    void flowsTopicKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README-kafka.md"),
                                FlowsTopicKeys.SCHEMA,
                                "flows-topic",
                                FlowsTopicKeys.KEYS))
                .isNull();
    }
}
