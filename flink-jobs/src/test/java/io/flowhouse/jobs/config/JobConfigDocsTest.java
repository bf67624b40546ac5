// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.Config;
import io.flowhouse.config.Key;
import io.flowhouse.config.docs.ConfigDocs;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.enrich.snmp.SnmpKeys;
import io.flowhouse.jobs.ageing.AgeingConfigKeys;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.rollup.RollupConfigKeys;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.ipfix.IpfixExporterKeys;
import io.flowhouse.sinks.kafka.FlowsTopicKeys;
import io.flowhouse.sinks.zmq.ZmqSinkKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The job's key tables are generated from the declarations, and every key of the schema is in one
 * of them (the sinks' tables are checked in the sinks module). When this fails, regenerate: {@code
 * mvn test -pl flink-jobs -Dtest=JobConfigDocsTest -Dconfig.docs.update=true}.
 */
class JobConfigDocsTest {

    @Test
    void jobKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README.md"), JobKeys.SCHEMA, "job", JobKeys.KEYS))
                .isNull();
    }

    @Test
    void packetsAndRollupKeyTables() {
        Path readme = Path.of("README-rollups.md");
        assertThat(ConfigDocs.checkReadme(readme, JobKeys.SCHEMA, "packets", AgeingConfigKeys.KEYS))
                .isNull();
        assertThat(ConfigDocs.checkReadme(readme, JobKeys.SCHEMA, "rollup", RollupConfigKeys.KEYS))
                .isNull();
    }

    @Test
    void everyKeyIsInOneTable() {
        List<Key<?>> documented = new ArrayList<>();
        documented.addAll(JobKeys.KEYS);
        documented.addAll(ClickHouseSinkKeys.KEYS);
        documented.addAll(AgeingConfigKeys.KEYS);
        documented.addAll(RollupConfigKeys.KEYS);
        documented.addAll(ZmqSinkKeys.KEYS);
        documented.addAll(IpfixExporterKeys.KEYS);
        documented.addAll(FlowsTopicKeys.KEYS);
        documented.addAll(EnrichKeys.KEYS); // table in enrichment/README.md
        documented.addAll(SnmpKeys.KEYS); // table in enrichment/README.md
        assertThat(JobKeys.SCHEMA.keys()).containsExactlyInAnyOrderElementsOf(documented);
    }

    @Test
    void theDockerDeploymentsFileReadsWithTheSchema() throws Exception {
        Path file = Path.of("../docker/flink/pipeline.yaml");
        assertThat(file).exists();
        Config c = JobArgs.resolve(Map.of(), "--config", file.toString());
        assertThat(c.get(JobKeys.KAFKA_BOOTSTRAP_SERVERS)).isEqualTo("kafka:9092");
        assertThat(PipelineSettings.from(c, Map.of()).clickhouse().flowsTtlDays()).isEqualTo(30);
        assertThat(Files.readString(file)).contains("JobKeys");
    }
}
