// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SQL on the stream beside SQL on ClickHouse: every NetFlow/IPFIX capture goes through the job into
 * both {@code flowhouse.flows} and the decoded-flows topic (exactly once); then the {@code CREATE
 * TABLE} documented in {@code sinks/README-kafka.md}, run as written (Kafka connector, protobuf
 * format, read_committed), and a top-talkers query on a MiniCluster give the same rows as that
 * query on {@code flows FINAL}.
 */
class FlowsTopicSqlITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final Pattern DDL =
            Pattern.compile("<!-- flink-sql-ddl[^>]*-->\\s*```sql\\n(.*?)```", Pattern.DOTALL);

    /** One top talker: source address as text, octets, packets, flows. */
    record Talker(String src, long octets, long packets, long flows) {}

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void topTalkersOnTheTopicEqualTopTalkersInClickHouse() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        String topic = "flows.decoded.sql";
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        ch,
                        "sql",
                        "--kafka.stop",
                        "latest",
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        topic,
                        "--flows-topic.partitions",
                        "3",
                        "--flows-topic.transactional-id-prefix",
                        "itcase-sql");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(),
                            IpAddress.parse("192.0.2." + (10 + i)),
                            40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);
        PipelineHarness.environment(s, ch).execute("flows topic and ClickHouse");

        List<Talker> clickhouse = new ArrayList<>();
        for (List<String> r :
                ch.queryRows(
                        "SELECT IPv6NumToString(src_addr), sum(bytes + reverse_bytes) AS octets,"
                                + " sum(packets + reverse_packets) AS pkts, count() AS flows"
                                + " FROM flowhouse_sql.flows FINAL GROUP BY src_addr"
                                + " ORDER BY octets DESC, pkts DESC, flows DESC LIMIT 10")) {
            clickhouse.add(
                    new Talker(
                            IpAddress.parse(r.get(0)).toString(),
                            Long.parseLong(r.get(1)),
                            Long.parseLong(r.get(2)),
                            Long.parseLong(r.get(3))));
        }

        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        sql.executeSql(documentedDdl(KAFKA.bootstrapServers(), topic));
        List<Talker> stream = new ArrayList<>();
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        sql.executeSql(
                                        "SELECT src_addr, SUM(`bytes` + reverse_bytes) AS octets,"
                                                + " SUM(packets + reverse_packets) AS pkts,"
                                                + " COUNT(*) AS flows FROM flows_decoded"
                                                + " GROUP BY src_addr"
                                                + " ORDER BY octets DESC, pkts DESC, flows DESC"
                                                + " LIMIT 10")
                                .collect());
        for (Row r : rows) {
            stream.add(
                    new Talker(
                            IpAddress.ofBytes((byte[]) r.getField(0)).toString(),
                            (Long) r.getField(1),
                            (Long) r.getField(2),
                            (Long) r.getField(3)));
        }
        assertThat(clickhouse).hasSize(10);
        // Ties at the cut would make LIMIT 10 pick either row: the data has none.
        assertThat(stream).containsExactlyElementsOf(clickhouse);
    }

    /** The README's CREATE TABLE, with this test's broker and topic. */
    static String documentedDdl(String bootstrap, String topic) throws Exception {
        Path readme =
                Path.of(System.getProperty("flowhouse.root.dir", ".."))
                        .resolve("sinks/README-kafka.md");
        Matcher m = DDL.matcher(Files.readString(readme, StandardCharsets.UTF_8));
        assertThat(m.find()).as("the flink-sql-ddl block of " + readme).isTrue();
        String ddl = m.group(1);
        assertThat(ddl).contains("'flows.decoded'").contains("'127.0.0.1:9092'");
        return ddl.replace("'flows.decoded'", "'" + topic + "'")
                .replace("'127.0.0.1:9092'", "'" + bootstrap + "'")
                .strip();
    }
}
