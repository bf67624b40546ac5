// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.Config;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decoded-flows topic with enrichment on, in a topic-only deployment (no ClickHouse): the IPFIX
 * flows of {@link EnrichedFanOutITCase} with the open country and ASN databases and a rules file go
 * through the production topology, and the independent Python reader ({@link PythonTopicReader}:
 * kafka-python, read_committed, Python's protobuf with the published {@code .proto}) reads each
 * flow's context: AS numbers and countries equal {@code mmdblookup}'s reading of the same files
 * (the exporter's AS where it sent one), names and classes equal the rules.
 */
class EnrichedFlowsTopicITCase {

    /** The context fields, in the order of topic_totals.py's CONTEXT_FIELDS. */
    private static final List<String> CONTEXT =
            List.of(
                    "exporter_name",
                    "exporter_role",
                    "exporter_site",
                    "exporter_region",
                    "exporter_tenant",
                    "in_if_name",
                    "in_if_description",
                    "in_if_speed",
                    "in_if_boundary",
                    "in_if_provider",
                    "in_if_connectivity",
                    "out_if_name",
                    "out_if_description",
                    "out_if_speed",
                    "out_if_boundary",
                    "out_if_provider",
                    "out_if_connectivity",
                    "src_country",
                    "dst_country",
                    "src_net_name",
                    "src_net_role",
                    "src_net_site",
                    "src_net_region",
                    "src_net_tenant",
                    "dst_net_name",
                    "dst_net_role",
                    "dst_net_site",
                    "dst_net_region",
                    "dst_net_tenant");

    private static final String RULES =
            """
            exporters:
              - prefix: 192.0.2.0/24
                region: eu-west
                tenant: acme
              - prefix: 192.0.2.60/32
                name: edge1.fra
                role: edge
                site: fra1
                interfaces:
                  - if-index: 537
                    name: xe-0/0/1
                    description: "transit: Example Carrier"
                    speed: 100000
                    boundary: external
                    connectivity: transit
                    provider: example
                  - if-index: 2
                    name: ae2.100
                    description: "Grün core"
                    boundary: internal
            networks:
              - prefix: 8.8.8.0/24
                name: google-dns
                role: resolver
                site: any
                region: global
                tenant: google
              - prefix: 1.1.1.0/24
                name: cloudflare-dns
            """;

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void theTopicCarriesEachFlowsContext(@TempDir Path dir) throws Exception {
        Path geo = GeoTestData.dir();
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        Path asn = geo.resolve("asn.mmdb");
        Path country = geo.resolve("country.mmdb");
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, RULES, StandardCharsets.UTF_8);
        String topic = "flows.decoded.enrtopic";
        Config conf =
                JobArgs.resolve(
                        Map.of(),
                        new String[] {
                            "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                            "--kafka.topic.raw", "flows.raw.enrtopic",
                            "--kafka.topic.rejected", "flows.rejected.enrtopic",
                            "--kafka.topic.templates", "flows.templates.enrtopic",
                            "--kafka.group-id", "itcase-enrtopic",
                            "--kafka.start", "earliest",
                            "--kafka.stop", "latest",
                            "--job.parallelism", "2",
                            "--job.checkpoint-interval", "1 s",
                            "--clickhouse.enabled", "false",
                            "--clickhouse.url", "http://127.0.0.1:9",
                            "--rollup.enabled", "false",
                            "--flows-topic.enabled", "true",
                            "--flows-topic.topic", topic,
                            "--flows-topic.partitions", "2",
                            "--flows-topic.transactional-id-prefix", "itcase-enrtopic",
                            "--enrich.geoip.asn-database", asn.toString(),
                            "--enrich.geoip.country-database", country.toString(),
                            "--enrich.asn-order", "exporter-first",
                            "--enrich.rules-file", rules.toString()
                        });
        PipelineSettings s = PipelineSettings.from(conf, Map.of());
        assertThat(s.enrich().enabled()).isTrue();
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(
                KAFKA.bootstrapServers(), s.rawTopic(), List.of(EnrichedFanOutITCase.datagram()));

        PipelineSinks sinks = PipelineConnectors.sinks(s);
        // Topic-only: no table takes the context, the topic alone makes the enrich stage run.
        assertThat(sinks.enrichedFlows()).isNull();
        assertThat(sinks.flowsTopic()).isNull();
        assertThat(sinks.enrichedFlowsTopic()).isNotNull();
        PipelineHarness.environment(s, sinks).execute("enriched flows topic");

        List<Map<String, String>> got =
                PythonTopicReader.readContext(KAFKA.bootstrapServers(), topic, dir, CONTEXT);
        List<Map<String, String>> want = new ArrayList<>();
        String[][] pairs = EnrichedFanOutITCase.PAIRS;
        for (int i = 0; i < pairs.length; i++) {
            String src = pairs[i][0];
            String dst = pairs[i][1];
            Map<String, String> r = new HashMap<>();
            for (String f : CONTEXT) {
                r.put(f, f.endsWith("_speed") ? "0" : "");
            }
            r.put("src_addr", src);
            r.put("dst_addr", dst);
            r.put(
                    "src_as",
                    i == pairs.length - 1
                            ? Long.toString(EnrichedFanOutITCase.EXPORTER_AS)
                            : orZero(GeoTestData.mmdblookup(asn, src, "autonomous_system_number")));
            r.put("dst_as", orZero(GeoTestData.mmdblookup(asn, dst, "autonomous_system_number")));
            r.put("src_country", GeoTestData.mmdblookup(country, src, "country_code"));
            r.put("dst_country", GeoTestData.mmdblookup(country, dst, "country_code"));
            r.putAll(
                    Map.of(
                            "exporter_name", "edge1.fra",
                            "exporter_role", "edge",
                            "exporter_site", "fra1",
                            "exporter_region", "eu-west",
                            "exporter_tenant", "acme"));
            r.putAll(
                    Map.of(
                            "in_if_name", "xe-0/0/1",
                            "in_if_description", "transit: Example Carrier",
                            "in_if_speed", "100000",
                            "in_if_boundary", "external",
                            "in_if_provider", "example",
                            "in_if_connectivity", "transit",
                            "out_if_name", "ae2.100",
                            "out_if_description", "Grün core",
                            "out_if_boundary", "internal"));
            network(r, "src", src);
            network(r, "dst", dst);
            want.add(r);
        }
        assertThat(want.get(0).get("src_country")).as("the database knows 8.8.8.8").isNotEmpty();
        assertThat(want.get(0).get("src_as")).isNotEqualTo("0");
        assertThat(got).containsExactlyInAnyOrderElementsOf(want);
    }

    private static void network(Map<String, String> r, String side, String ip) {
        if (ip.startsWith("8.8.8.")) {
            r.put(side + "_net_name", "google-dns");
            r.put(side + "_net_role", "resolver");
            r.put(side + "_net_site", "any");
            r.put(side + "_net_region", "global");
            r.put(side + "_net_tenant", "google");
        } else if (ip.startsWith("1.1.1.")) {
            r.put(side + "_net_name", "cloudflare-dns");
        }
    }

    private static String orZero(String as) {
        return as.isEmpty() ? "0" : as;
    }
}
