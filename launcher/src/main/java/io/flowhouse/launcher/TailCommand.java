// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.schema.v1.Flow;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./flowhouse tail}: prints decoded flows live from the decoded-flows topic ({@code
 * flowhouse.v1.Flow}), the way {@code kcat} shows messages, read with {@code read_committed}.
 */
@Command(
        name = "tail",
        mixinStandardHelpOptions = true,
        description = {
            "print decoded flows live from the decoded-flows topic (./flowhouse up --flows-topic)",
            "",
            "Reads the topic (flowhouse.v1.Flow records) with isolation.level=read_committed,",
            "from its end (new flows) or with --from-beginning, and prints the flows that match",
            "--filter, one per line. Records in goflow2's format are not read.",
            ""
        },
        footer = {
            "",
            "Examples:",
            "  ./flowhouse tail --filter \"exporter=192.0.2.1 and proto=tcp\"",
            "  ./flowhouse tail --filter addr=10.0.0.7 --format json --max 100"
        })
final class TailCommand implements Callable<Integer> {

    private final LaunchContext ctx;

    @Mixin ServicesOptions services = new ServicesOptions();

    @Option(names = "--topic", paramLabel = "T", description = "the topic (default flows.decoded)")
    String topic = PipelineCommand.FLOWS_TOPIC_DEFAULT;

    @Option(
            names = "--filter",
            paramLabel = "EXPR",
            description = {
                "KEY=VALUE terms, all must hold (separated by spaces or 'and'); keys:",
                FlowFilter.KEYS
            })
    String filter;

    @Option(
            names = "--format",
            paramLabel = "F",
            description = "table (default) or json (one object per line)")
    String format = "table";

    @Option(names = "--from-beginning", description = "start at the oldest record")
    boolean fromBeginning;

    @Option(
            names = "--max",
            paramLabel = "N",
            description = "stop after N matching flows (default: run until interrupted)")
    long max;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            description = "another Kafka cluster (default: the local services' broker)")
    String bootstrap;

    TailCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        FlowFilter f;
        try {
            f = FlowFilter.parse(filter);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--filter " + e.getMessage());
        }
        boolean json = format.equalsIgnoreCase("json");
        if (!json && !format.equalsIgnoreCase("table")) {
            throw new UsageError("--format " + format + " (expected: json, table)");
        }
        if (max < 0) {
            throw new UsageError("--max " + max + " (expected: >= 0)");
        }
        String servers =
                bootstrap != null ? bootstrap : services.config(ctx, true).kafkaBootstrap();
        PrintStream out = ctx.out();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        long shown = 0;
        long bad = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(30));
            if (infos == null || infos.isEmpty()) {
                ctx.err()
                        .println(
                                "flowhouse tail: no topic "
                                        + topic
                                        + " at "
                                        + servers
                                        + " (./flowhouse up --flows-topic writes it)");
                return ExitCode.FAILURE;
            }
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo i : infos) {
                parts.add(new TopicPartition(i.topic(), i.partition()));
            }
            c.assign(parts);
            if (fromBeginning) {
                c.seekToBeginning(parts);
            } else {
                c.seekToEnd(parts);
            }
            if (!json) {
                out.println(header());
            }
            while (max == 0 || shown < max) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    Flow flow;
                    try {
                        flow = Flow.parseFrom(r.value());
                    } catch (InvalidProtocolBufferException e) {
                        // Not a flowhouse.v1.Flow (goflow2's format, another writer): counted.
                        bad++;
                        continue;
                    }
                    if (f.test(flow)) {
                        out.println(json ? json(flow) : row(flow));
                        if (++shown == max) {
                            break;
                        }
                    }
                }
                out.flush();
            }
        }
        if (bad > 0) {
            ctx.err().println("flowhouse tail: " + bad + " records were not flowhouse.v1.Flow");
        }
        return ExitCode.OK;
    }

    static String header() {
        return String.format(
                Locale.ROOT,
                "%-24s %-22s %-41s %-41s %5s %10s %12s",
                "time_received",
                "exporter",
                "src",
                "dst",
                "proto",
                "packets",
                "bytes");
    }

    static String row(Flow f) {
        return String.format(
                Locale.ROOT,
                "%-24s %-22s %-41s %-41s %5d %10s %12s",
                Instant.ofEpochMilli(f.getTimeReceivedMs()),
                endpoint(f.getExporterAddress(), f.getExporterPort()),
                endpoint(f.getSrcAddr(), f.getSrcPort()),
                endpoint(f.getDstAddr(), f.getDstPort()),
                f.getProto(),
                Long.toUnsignedString(f.getPackets()),
                Long.toUnsignedString(f.getBytes()));
    }

    static String json(Flow f) {
        StringBuilder b = new StringBuilder(512).append('{');
        field(b, "row_id", Long.toUnsignedString(f.getRowId()), false);
        field(b, "row_id_hi", Long.toUnsignedString(f.getRowIdHi()), false);
        field(b, "exporter", address(f.getExporterAddress()), true);
        field(b, "exporter_port", Integer.toString(f.getExporterPort()), false);
        field(b, "observation_domain", Integer.toUnsignedString(f.getObservationDomain()), false);
        field(b, "version", Integer.toString(f.getVersion()), false);
        field(b, "sequence_number", Integer.toUnsignedString(f.getSequenceNumber()), false);
        field(b, "time_received_ms", Long.toString(f.getTimeReceivedMs()), false);
        field(b, "flow_start_ms", Long.toString(f.getFlowStartMs()), false);
        field(b, "flow_end_ms", Long.toString(f.getFlowEndMs()), false);
        field(b, "ip_version", Integer.toString(f.getIpVersion()), false);
        field(b, "src_addr", address(f.getSrcAddr()), true);
        field(b, "dst_addr", address(f.getDstAddr()), true);
        field(b, "src_port", Integer.toString(f.getSrcPort()), false);
        field(b, "dst_port", Integer.toString(f.getDstPort()), false);
        field(b, "proto", Integer.toString(f.getProto()), false);
        field(b, "tcp_flags", Integer.toString(f.getTcpFlags()), false);
        field(b, "tos", Integer.toString(f.getTos()), false);
        field(b, "bytes", Long.toUnsignedString(f.getBytes()), false);
        field(b, "packets", Long.toUnsignedString(f.getPackets()), false);
        field(b, "reverse_bytes", Long.toUnsignedString(f.getReverseBytes()), false);
        field(b, "reverse_packets", Long.toUnsignedString(f.getReversePackets()), false);
        field(b, "sampling_rate", Long.toUnsignedString(f.getSamplingRate()), false);
        field(b, "in_if", Integer.toUnsignedString(f.getInIf()), false);
        field(b, "out_if", Integer.toUnsignedString(f.getOutIf()), false);
        field(b, "src_as", Integer.toUnsignedString(f.getSrcAs()), false);
        field(b, "dst_as", Integer.toUnsignedString(f.getDstAs()), false);
        field(b, "vlan", Integer.toString(f.getVlan()), false);
        b.setLength(b.length() - 1);
        return b.append('}').toString();
    }

    private static void field(StringBuilder b, String name, String value, boolean quoted) {
        b.append('"').append(name).append("\":");
        if (quoted) {
            b.append('"').append(value).append('"');
        } else {
            b.append(value);
        }
        b.append(',');
    }

    private static String address(ByteString bytes) {
        return bytes.size() == 16 || bytes.size() == 4
                ? IpAddress.ofBytes(bytes.toByteArray()).toString()
                : "";
    }

    private static String endpoint(ByteString addr, int port) {
        String a = address(addr);
        return (a.indexOf(':') >= 0 ? "[" + a + "]" : a) + ":" + port;
    }
}
