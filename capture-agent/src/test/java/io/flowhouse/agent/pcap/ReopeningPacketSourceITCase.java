// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A live capture on one end of a veth pair whose other end sits in a network namespace the test
 * creates: UDP datagrams sent through the pair are captured; the pair is deleted (libpcap: "The
 * interface disappeared") and created again; the capture reopens by itself and captures the next
 * datagrams. Needs root, iproute2 and bash (its /dev/udp sends from inside the namespace).
 */
class ReopeningPacketSourceITCase {

    @Test
    void reopensWhenTheInterfaceComesBack() throws Exception {
        ServiceRequirement.require(
                "root".equals(System.getProperty("user.name")), "root for veth and netns");
        ServiceRequirement.require(
                Files.isExecutable(Path.of("/usr/sbin/ip"))
                        || Files.isExecutable(Path.of("/sbin/ip")),
                "iproute2 (ip)");
        String id =
                String.format(Locale.ROOT, "%06x", ThreadLocalRandom.current().nextInt(1 << 24));
        String ns = "fhns" + id;
        String inside = "fha" + id;
        String outside = "fhb" + id;
        int net = 1 + ThreadLocalRandom.current().nextInt(250);
        String insideAddr = "10.251." + net + ".1";
        String outsideAddr = "10.251." + net + ".2";
        try {
            ip("netns", "add", ns);
            createPair(ns, inside, outside, insideAddr, outsideAddr);
            AgentConfig.Packets config =
                    AgentCommand.configFrom(
                                    new String[] {
                                        "--interface", outside, "--filter", "udp and dst port 9"
                                    })
                            .packets();
            AgentMetrics metrics = new AgentMetrics();
            ConcurrentLinkedQueue<Outbound> out = new ConcurrentLinkedQueue<>();
            PacketBatcher batcher =
                    new PacketBatcher(
                            "packets.raw",
                            1,
                            8,
                            20_000_000L,
                            1,
                            out::add,
                            metrics,
                            Clock.systemUTC());
            ReopeningPacketSource source =
                    new ReopeningPacketSource(
                            new Pcap4jPacketSource(config, metrics),
                            () -> new Pcap4jPacketSource(config, metrics),
                            metrics);
            CompletableFuture<Long> run =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return source.run(batcher);
                                } catch (InterruptedException e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            try {
                List<PacketSummary> seen = new ArrayList<>();
                send(ns, outsideAddr);
                awaitSummaries(out, seen, 3);
                assertThat(seen).hasSizeGreaterThanOrEqualTo(3);

                ip("link", "del", outside);
                Thread.sleep(500);
                createPair(ns, inside, outside, insideAddr, outsideAddr);
                // The capture retries after 1 s, then 2 s: send until it sees the interface again.
                int before = seen.size();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (seen.size() < before + 3 && System.nanoTime() < deadline) {
                    send(ns, outsideAddr);
                    awaitSummaries(out, seen, 1);
                }
                assertThat(seen).hasSizeGreaterThanOrEqualTo(before + 3);
                assertThat(metrics.captureReopens()).isGreaterThanOrEqualTo(1);
                assertThat(seen).allSatisfy(s -> assertThat(s.dstPort()).isEqualTo(9));
            } finally {
                source.close();
                run.get(10, TimeUnit.SECONDS);
            }
        } finally {
            ipQuiet("link", "del", outside);
            ipQuiet("netns", "del", ns);
        }
    }

    private static void createPair(
            String ns, String inside, String outside, String insideAddr, String outsideAddr)
            throws Exception {
        ip("link", "add", outside, "type", "veth", "peer", "name", inside);
        ip("link", "set", inside, "netns", ns);
        ip("-n", ns, "addr", "add", insideAddr + "/30", "dev", inside);
        ip("-n", ns, "link", "set", inside, "up");
        ip("addr", "add", outsideAddr + "/30", "dev", outside);
        ip("link", "set", outside, "up");
    }

    /** Three UDP datagrams from inside the namespace to port 9 (discard) of the outside end. */
    private static void send(String ns, String to) throws Exception {
        run(
                "ip",
                "netns",
                "exec",
                ns,
                "bash",
                "-c",
                "for i in 1 2 3; do echo flowhouse > /dev/udp/" + to + "/9; sleep 0.1; done");
    }

    private static void awaitSummaries(
            ConcurrentLinkedQueue<Outbound> out, List<PacketSummary> seen, int atLeast)
            throws InterruptedException {
        int target = seen.size() + atLeast;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (seen.size() < target && System.nanoTime() < deadline) {
            Outbound o = out.poll();
            if (o == null) {
                Thread.sleep(20);
                continue;
            }
            seen.addAll(PacketBatchCodec.decode(o.value()));
        }
    }

    private static void ip(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        int code = run(cmd);
        if (code != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with " + code);
        }
    }

    private static void ipQuiet(String... args) {
        try {
            ip(args);
        } catch (Exception e) {
            // already gone
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not finish");
        }
        return p.exitValue();
    }
}
