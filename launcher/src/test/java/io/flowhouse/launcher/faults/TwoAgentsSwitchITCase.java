// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two capture agents as two hosts: each in its own network namespace with its own address on one
 * bridge, both on UDP 2055 and both producing to {@code flows.raw} on the one broker (which listens
 * on the bridge). Each agent holds a service address (a VIP); eight exporters, each a router with
 * its own address (v5, v9 and IPFIX, IPv4 and IPv6 templates), send half to one VIP and half to the
 * other. Agent A is killed with SIGKILL; its exporters stream on into the dead host for a few
 * seconds, then its VIP moves to host B (the root namespace's neighbour entry switched at once, as
 * a gratuitous ARP does) and agent B takes their datagrams. Checked: every exporter's datagrams are
 * in one partition (the agents key by exporter) and in the order sent; what is missing from Kafka
 * is only what host A's kernel dropped ({@code Udp NoPorts}, {@code InErrors}) and what the dead
 * agent held (read from its socket or queued there, not yet acknowledged), every part counted;
 * nothing of agent B's is missing; and the job is exact per exporter in {@code flows}, {@code
 * flows_1m} and {@code exporter_stats} (the moved exporters' templates came along: nothing held,
 * nothing rejected).
 */
class TwoAgentsSwitchITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int RATE = 400;
    private static final int UDP_PORT = 2055; // each host has its own ports
    private static final int METRICS_PORT = 9108;
    private static final String DB = "flowhouse_two_agents";

    @TempDir Path dir;

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void killedAgentsExportersMoveToTheOtherLosingOnlyWhatIsCounted() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (NetNamespaces net = NetNamespaces.create()) {
            String hostA = net.addHost('a');
            String hostB = net.addHost('b');
            String vipA = net.address(101);
            String vipB = net.address(102);
            net.addAddress(hostA, vipA);
            net.addAddress(hostB, vipB);
            for (int i = 0; i < MixedExporters.EXPORTERS; i++) {
                net.addBridgeAddress(router(net, i));
            }
            int[] ports = ClusterProbe.freePorts(2);
            // The broker listens on every address, and tells its clients the bridge's: the hosts
            // reach it there, and so does this namespace (the bridge address is local here).
            try (EmbeddedKafka kafka =
                    EmbeddedKafka.builder()
                            .partitions(4)
                            .port(ports[0])
                            .brokerProperty(
                                    "listeners",
                                    "PLAINTEXT://0.0.0.0:"
                                            + ports[0]
                                            + ",CONTROLLER://127.0.0.1:"
                                            + ports[1])
                            .brokerProperty("controller.quorum.voters", "1@127.0.0.1:" + ports[1])
                            .brokerProperty(
                                    "advertised.listeners",
                                    "PLAINTEXT://" + net.gateway() + ":" + ports[0])
                            .build()
                            .start()) {
                kafka.createTopic("flows.raw", 4);
                kafka.createTopic("flows.rejected", 1);
                String agentBootstrap = net.gateway() + ":" + ports[0];
                PipelineSettings s = FaultSupport.jobSettings(kafka.bootstrapServers(), ch, DB);
                JobClient job = FaultSupport.restartingJob(s, ch).executeAsync("two agents");
                AtomicBoolean sending = new AtomicBoolean(true);
                try (AgentProcess agentA = agent(net, hostA, "agent-a", agentBootstrap).start();
                        AgentProcess agentB = agent(net, hostB, "agent-b", agentBootstrap).start();
                        MixedExporters sender =
                                new MixedExporters(
                                        i -> new InetSocketAddress(router(net, i), 0),
                                        i ->
                                                new InetSocketAddress(
                                                        isGroupA(i) ? vipA : vipB, UDP_PORT))) {
                    Thread stream = ClusterProbe.stream(sender, sending, RATE);
                    FaultSupport.awaitScalar(
                            ch, "SELECT count() FROM " + DB + ".flows", 1, Duration.ofSeconds(180));
                    Thread.sleep(5_000);

                    // Agent A dies; its exporters stream on into host A, whose kernel drops them.
                    // Their datagrams from 2 s before the kill on may be lost: those the agent
                    // held unacknowledged at the kill, and all after it until the switch.
                    for (int i = 0; i < MixedExporters.EXPORTERS; i++) {
                        sender.down(i, isGroupA(i));
                    }
                    Thread.sleep(2_000);
                    long agentAReceived = agentA.metricSum("flowhouse_agent_datagrams_total");
                    int sentToABeforeKill = sender.sentBy(TwoAgentsSwitchITCase::isGroupA);
                    long killed = System.nanoTime();
                    agentA.kill9();
                    int sentToAAtDeath = sender.sentBy(TwoAgentsSwitchITCase::isGroupA);
                    Thread.sleep(3_000);
                    int[] sentToAAtSwitch = new int[1];
                    sender.between(
                            () -> {
                                net.moveAddress(vipA, hostA, hostB);
                                sentToAAtSwitch[0] = sender.sentBy(TwoAgentsSwitchITCase::isGroupA);
                            });
                    Duration switched = Duration.ofNanos(System.nanoTime() - killed);
                    sender.down(false);
                    Thread.sleep(10_000); // agent B carries every exporter
                    long lastMinute = ClusterProbe.endStream(stream, sending, sender, RATE);
                    awaitDrained(agentB, hostB);

                    Map<String, Long> kernelA = NetNamespaces.udpCounters(hostA);
                    Map<String, Long> kernelB = NetNamespaces.udpCounters(hostB);
                    InKafka k = readKafka(kafka.bootstrapServers(), sender);

                    // Nothing of host B's is lost: what its kernel queued, agent B delivered.
                    assertThat(kernelB.get("InErrors")).as("host B kernel drops").isZero();
                    assertThat(kernelB.get("NoPorts")).as("host B no-port drops").isZero();
                    assertThat(k.byAgent.getOrDefault("agent-b", 0L))
                            .as("agent B's datagrams in flows.raw")
                            .isEqualTo(kernelB.get("InDatagrams"));
                    assertThat(agentB.metricSum("flowhouse_agent_dropped_datagrams_total"))
                            .isZero();
                    assertThat(k.duplicates).as("datagrams twice in flows.raw").isZero();

                    assertLossCounted(
                            sender,
                            k,
                            kernelA,
                            new int[] {sentToABeforeKill, sentToAAtDeath, sentToAAtSwitch[0]},
                            switched,
                            agentAReceived);

                    assertTablesExact(ch, sender, k, lastMinute);
                    assertThat(job.getJobStatus().get(10, TimeUnit.SECONDS).isTerminalState())
                            .isFalse();
                    // The traffic's hour closes only at its end on the receive clock: a drained
                    // stop, then flows_1h per exporter against the raw table.
                    FaultSupport.drainedStop(job, dir.resolve("savepoints"));
                    FaultSupport.assertHourExact(ch::queryRows, DB);
                } finally {
                    sending.set(false);
                    FaultSupport.cancelIfRunning(job);
                }
            }
        }
    }

    /**
     * What is missing: host A's exporters' datagrams from shortly before the kill to the switch,
     * each counted by host A's kernel or as the dead agent's; {@code outage} holds what host A's
     * exporters had sent before the kill, at the death and at the switch.
     */
    private static void assertLossCounted(
            MixedExporters sender,
            InKafka k,
            Map<String, Long> kernelA,
            int[] outage,
            Duration switched,
            long agentAReceived) {
        int sentToABeforeKill = outage[0];
        int sentToAAtDeath = outage[1];
        int sentToAAtSwitch = outage[2];
        // What is missing: the exporters of host A, from shortly before the kill to
        // the switch, each counted by host A's kernel or as the dead agent's.
        int lost = sender.sent() - k.distinct;
        long noPorts = kernelA.get("NoPorts");
        long kernelErrors = kernelA.get("InErrors");
        long readNotAcked = kernelA.get("InDatagrams") - k.byAgent.getOrDefault("agent-a", 0L);
        long queuedAtKill = sentToAAtSwitch - kernelA.get("InDatagrams") - noPorts;
        queuedAtKill -= kernelErrors;
        assertThat(sentToAAtSwitch - k.byAgent.getOrDefault("agent-a", 0L))
                .as("lost = sent to host A before the switch - agent A's in Kafka")
                .isEqualTo(lost);
        assertThat(noPorts)
                .as("every datagram sent after agent A died was dropped by host A")
                .isGreaterThanOrEqualTo(sentToAAtSwitch - sentToAAtDeath);
        assertThat(readNotAcked).as("read by agent A, not in Kafka").isNotNegative();
        assertThat(queuedAtKill).as("queued in agent A's socket at the kill").isNotNegative();
        assertThat(readNotAcked + queuedAtKill)
                .as("in flight in agent A at the kill (at most 2 s of its traffic)")
                .isLessThanOrEqualTo(RATE);
        assertThat(k.lostOutsideWindow)
                .as("lost datagrams outside host A's exporters' outage")
                .isEmpty();
        assertThat(k.outOfOrder).as("exporters out of sending order").isEmpty();
        assertThat(k.partitionsOf.values())
                .as("partitions per exporter")
                .allSatisfy(p -> assertThat(p).hasSize(1));
        assertThat(k.byAgentAndExporter.keySet())
                .as("host A's exporters reached Kafka through both agents")
                .contains("agent-a/0", "agent-b/0", "agent-a/6", "agent-b/6");

        System.out.printf(
                Locale.ROOT,
                "TWO AGENTS: sent %d datagrams (%d to host A before the kill, %d at"
                        + " its death, %d at the switch %.1f s after the kill), %d in"
                        + " flows.raw (agent A %d, agent B %d), lost %d = host A"
                        + " NoPorts %d + InErrors %d + read by agent A not acked %d"
                        + " + queued at the kill %d; agent A had received %d before"
                        + " the kill; %d flows %d packets %d bytes%n",
                sender.sent(),
                sentToABeforeKill,
                sentToAAtDeath,
                sentToAAtSwitch,
                switched.toMillis() / 1000.0,
                k.distinct,
                k.byAgent.getOrDefault("agent-a", 0L),
                k.byAgent.getOrDefault("agent-b", 0L),
                lost,
                noPorts,
                kernelErrors,
                readNotAcked,
                queuedAtKill,
                agentAReceived,
                k.totals[0],
                k.totals[1],
                k.totals[2]);
        FaultSupport.row(
                "e2e: 2 agents (namespaces), one kill -9, its VIP moved to the other",
                sender.sent(),
                k.distinct,
                lost,
                0,
                k.duplicates,
                switched,
                String.format(
                        Locale.ROOT,
                        "flows FINAL, flows_1m, exporter_stats, flows_1h (drained stop) per"
                                + " exporter; lost ="
                                + " host A NoPorts %d + in flight in agent A %d",
                        noPorts,
                        readNotAcked + queuedAtKill));
    }

    /** Exporters 0, 2, 4, 6 (v5, v5, v9, IPFIX) send to host A, the others to host B. */
    private static boolean isGroupA(int exporter) {
        return exporter % 2 == 0;
    }

    private static String router(NetNamespaces net, int exporter) {
        return net.address(201 + exporter);
    }

    private AgentProcess agent(NetNamespaces net, String host, String id, String bootstrap)
            throws Exception {
        Path home = dir.resolve(id);
        String address = net.hostAddress(host);
        Path yaml =
                FaultSupport.agentYaml(
                        home, id, "0.0.0.0:" + UDP_PORT, bootstrap, address, METRICS_PORT);
        return new AgentProcess(
                yaml, home.resolve("agent.log"), NetNamespaces.exec(host), address, METRICS_PORT);
    }

    /** Until agent B has had every datagram its kernel queued acknowledged by Kafka. */
    private static void awaitDrained(AgentProcess agent, String host) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            long queued = NetNamespaces.udpCounters(host).get("InDatagrams");
            if (agent.metricSum("flowhouse_agent_kafka_datagrams_total") >= queued) {
                Thread.sleep(1_000);
                if (NetNamespaces.udpCounters(host).get("InDatagrams") == queued) {
                    return;
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("agent B did not deliver what it received");
    }

    /** What {@code flows.raw} holds, by stamp, agent, exporter and partition. */
    private static final class InKafka {
        int distinct;
        int duplicates;
        final long[] totals = new long[3];
        final Map<String, Long> byAgent = new HashMap<>();
        final Map<String, Long> byAgentAndExporter = new TreeMap<>();
        final Map<Integer, Set<Integer>> partitionsOf = new TreeMap<>();
        final Map<Integer, long[]> perExporter = new TreeMap<>();
        final List<String> outOfOrder = new ArrayList<>();
        final List<String> lostOutsideWindow = new ArrayList<>();
    }

    private static InKafka readKafka(String bootstrap, MixedExporters sender) {
        // Everything sent outside the outage must be there; read until it is.
        long floor = sender.sent() - sender.sentWhileDown();
        List<ConsumerRecord<byte[], byte[]>> records =
                new ArrayList<>(
                        TopicReader.readAll(
                                bootstrap,
                                "flows.raw",
                                Duration.ofSeconds(60),
                                RawRecords.atLeast(floor)));
        records.sort(
                Comparator.comparingInt((ConsumerRecord<byte[], byte[]> r) -> r.partition())
                        .thenComparingLong(ConsumerRecord::offset));
        InKafka k = new InKafka();
        Set<String> stamps = new HashSet<>();
        Set<Integer> seenOrders = new HashSet<>();
        Map<Integer, Integer> lastOrder = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            // A batch record's datagrams, in their order: one exporter, one partition.
            for (RawDatagram d : RawDatagramCodec.decodeAll(r.value())) {
                DatagramStamp st = d.stamp();
                String id =
                        d.agentId() + "/" + st.epoch() + "/" + st.stream() + "/" + st.sequence();
                if (!stamps.add(id)) {
                    k.duplicates++;
                    continue;
                }
                int[] origin = sender.originOf(d.payload());
                assertThat(origin).as("a datagram the sender sent").isNotNull();
                long[] t = sender.totalsOf(d.payload());
                k.distinct++;
                for (int i = 0; i < 3; i++) {
                    k.totals[i] += t[i];
                }
                int e = origin[0];
                k.perExporter.computeIfAbsent(e, x -> new long[4]);
                long[] pe = k.perExporter.get(e);
                pe[0]++;
                pe[1] += t[0];
                pe[2] += t[1];
                pe[3] += t[2];
                k.byAgent.merge(d.agentId(), 1L, Long::sum);
                k.byAgentAndExporter.merge(d.agentId() + "/" + e, 1L, Long::sum);
                k.partitionsOf.computeIfAbsent(e, x -> new HashSet<>()).add(r.partition());
                Integer before = lastOrder.put(e, origin[1]);
                if (before != null && before >= origin[1]) {
                    k.outOfOrder.add("exporter " + e + ": " + origin[1] + " after " + before);
                }
                seenOrders.add(e * 1_000_000 + origin[1]);
            }
        }
        // Every datagram missing must be one of host A's exporters', sent while it was down.
        for (int e = 0; e < MixedExporters.EXPORTERS; e++) {
            int exporter = e;
            int sentByE = sender.sentBy(x -> x == exporter);
            for (int n = 0; n < sentByE; n++) {
                if (!seenOrders.contains(e * 1_000_000 + n)
                        && !(isGroupA(e) && sender.wasSentWhileDown(e, n))) {
                    k.lostOutsideWindow.add("exporter " + e + " datagram " + n);
                }
            }
        }
        return k;
    }

    /**
     * Per exporter: {@code flows FINAL} (count, packets, bytes, one row per row id) and {@code
     * exporter_stats} (datagrams, no duplicates, no resets) equal what reached Kafka; {@code
     * flows_1m} equals the raw flows per exporter and closed window.
     */
    private static void assertTablesExact(
            LocalClickHouse ch, MixedExporters sender, InKafka k, long lastMinute)
            throws Exception {
        FaultSupport.awaitScalar(
                ch,
                "SELECT sum(packets) FROM " + DB + ".flows FINAL",
                k.totals[1],
                Duration.ofSeconds(180));
        List<Integer> ports = sender.ports();
        assertThat(new HashSet<>(ports)).as("exporter ports distinct").hasSize(ports.size());
        List<List<String>> expectedFlows = new ArrayList<>();
        List<List<String>> expectedStats = new ArrayList<>();
        Map<Integer, Integer> byPort = new TreeMap<>();
        for (int e = 0; e < ports.size(); e++) {
            byPort.put(ports.get(e), e);
        }
        for (Map.Entry<Integer, Integer> p : byPort.entrySet()) {
            long[] pe = k.perExporter.getOrDefault(p.getValue(), new long[4]);
            expectedFlows.add(
                    List.of(
                            Integer.toString(p.getKey()),
                            Long.toString(pe[1]),
                            Long.toString(pe[2]),
                            Long.toString(pe[3]),
                            Long.toString(pe[1])));
            expectedStats.add(List.of(Integer.toString(p.getKey()), Long.toString(pe[0]), "0"));
        }
        assertThat(
                        ch.queryRows(
                                "SELECT exporter_port, count(), sum(packets), sum(bytes),"
                                        + " uniqExact(row_id, row_id_hi) FROM "
                                        + DB
                                        + ".flows FINAL GROUP BY exporter_port ORDER BY"
                                        + " exporter_port"))
                .as("flows FINAL per exporter")
                .isEqualTo(expectedFlows);
        String rawByWindow =
                "SELECT exporter, toStartOfMinute(flow_end) AS w, count(), sum(packets),"
                        + " sum(bytes) FROM "
                        + DB
                        + ".flows FINAL WHERE flow_end < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, w ORDER BY exporter, w";
        String oneMinute =
                "SELECT exporter, window_start, sum(flows), sum(packets), sum(bytes) FROM "
                        + DB
                        + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0 AND"
                        + " window_start < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, window_start ORDER BY exporter, window_start";
        List<List<String>> windows = ch.queryRows(rawByWindow);
        assertThat(windows).as("closed windows").isNotEmpty();
        awaitRows(ch, oneMinute, windows);
        assertThat(ch.queryRows(oneMinute)).as("flows_1m per exporter").isEqualTo(windows);
        String stats =
                "SELECT exporter_port, sum(datagrams), sum(duplicate_datagrams) FROM "
                        + DB
                        + ".exporter_stats FINAL GROUP BY exporter_port ORDER BY exporter_port";
        awaitRows(ch, stats, expectedStats);
        assertThat(ch.queryRows(stats)).as("exporter_stats per exporter").isEqualTo(expectedStats);
        System.out.println(
                "TWO AGENTS exporter_stats (port, version, gaps, lost, resets): "
                        + ch.queryRows(
                                "SELECT exporter_port, version, sum(sequence_gaps),"
                                        + " sum(lost_datagrams), sum(sequence_resets) FROM "
                                        + DB
                                        + ".exporter_stats FINAL GROUP BY exporter_port, version"
                                        + " ORDER BY exporter_port"));
        assertThat(
                        ch.queryScalar(
                                "SELECT sum(sequence_resets) FROM " + DB + ".exporter_stats FINAL"))
                .as("sequence resets")
                .isEqualTo("0");
        assertThat(
                        ch.queryScalar(
                                "SELECT sum(records_before_template) + sum(rejected_records) FROM "
                                        + DB
                                        + ".exporter_stats FINAL"))
                .as("records held for a template or rejected")
                .isEqualTo("0");
    }

    private static void awaitRows(LocalClickHouse ch, String sql, List<List<String>> rows)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
        while (System.nanoTime() < deadline && !ch.queryRows(sql).equals(rows)) {
            Thread.sleep(1_000);
        }
    }
}
