// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.enrich.InterfaceInfo;
import io.flowhouse.enrich.snmp.SnmpCredential.AuthProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.PrivProtocol;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SNMP directory against a real agent: Debian's {@code snmpd} on loopback, serving this
 * machine's interface table, checked against net-snmp's own {@code snmpwalk} of the same agent;
 * then agents that are down, silent, or refuse the community, and the bounds.
 */
class SnmpInterfaceDirectoryITCase {

    private static final InetAddress LOCAL = InetAddress.getLoopbackAddress();

    @TempDir static Path dir;
    private static Snmpd snmpd;

    @BeforeAll
    static void startAgent() throws Exception {
        snmpd = Snmpd.start(dir);
        // An alias on the loopback interface (ASCII) and one with UTF-8 on the last interface.
        Map<Long, String> names = snmpd.walk(snmpd.v2c(), ExporterPoll.IF_NAME.toDottedString());
        snmpd.setAlias(names.keySet().iterator().next(), "loopback of the test agent");
        if (names.size() > 1) {
            snmpd.setAlias(((TreeMap<Long, String>) names).lastKey(), "uplink to Zürich é");
        }
    }

    @AfterAll
    static void stopAgent() {
        if (snmpd != null) {
            snmpd.close();
        }
    }

    @Test
    void v2cHoldsWhatSnmpwalkReturns() throws Exception {
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.0/8", Snmpd.COMMUNITY)));
        try (SnmpInterfaceDirectory directory =
                SnmpInterfaceDirectory.start(
                        SnmpOptions.builder(credentials).port(snmpd.port).build())) {
            assertThat(directory.exporterName(LOCAL)).isEmpty();
            directory.observe(LOCAL);
            await(() -> directory.counters().pollsOk() >= 1, "a v2c poll");

            assertEqualsSnmpwalk(directory, LOCAL, snmpd.v2c());
            assertThat(directory.counters().pollsFailed()).isZero();
            assertThat(directory.counters().pollsTimedOut()).isZero();
            assertThat(directory.lastError(LOCAL)).isEmpty();
        }
    }

    @Test
    void v3ShaAesHoldsWhatSnmpwalkReturnsAndMostSpecificCredentialsWin() throws Exception {
        InetAddress exporter = InetAddress.getByName("192.0.2.17");
        SnmpCredentials credentials =
                new SnmpCredentials(
                        List.of(
                                SnmpCredential.v3(
                                        "192.0.2.0/24",
                                        Snmpd.USER,
                                        AuthProtocol.SHA,
                                        Snmpd.AUTH_PASS,
                                        PrivProtocol.AES,
                                        Snmpd.PRIV_PASS),
                                // Less specific, declared later: must not be chosen.
                                SnmpCredential.v2c("0.0.0.0/0", "not-the-community")));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .agent(exporter, new InetSocketAddress(LOCAL, snmpd.port))
                        .build();
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(exporter);
            await(() -> directory.counters().pollsOk() >= 1, "a v3 poll");

            assertEqualsSnmpwalk(directory, exporter, snmpd.v3());
            assertThat(directory.exporterName(LOCAL)).isEmpty();
        }
    }

    @Test
    void aRefreshPicksUpAChangedAlias() throws Exception {
        long last =
                ((TreeMap<Long, String>)
                                snmpd.walk(snmpd.v2c(), ExporterPoll.IF_NAME.toDottedString()))
                        .lastKey();
        String before = snmpd.walk(snmpd.v2c(), ExporterPoll.IF_ALIAS.toDottedString()).get(last);
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1", Snmpd.COMMUNITY)));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .port(snmpd.port)
                        .refreshInterval(Duration.ofMillis(300))
                        .build();
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(LOCAL);
            await(() -> directory.counters().pollsOk() >= 1, "a first poll");
            snmpd.setAlias(last, "renamed by the refresh test");
            await(
                    () ->
                            directory
                                    .lookupInterface(LOCAL, last)
                                    .map(i -> i.description().equals("renamed by the refresh test"))
                                    .orElse(false),
                    "the new alias after a refresh");
            assertThat(directory.counters().pollsOk()).isGreaterThanOrEqualTo(2);
        } finally {
            snmpd.setAlias(last, before);
        }
    }

    @Test
    void anAgentThatStopsAnsweringKeepsWhatItAnsweredBefore(@TempDir Path own) throws Exception {
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1", Snmpd.COMMUNITY)));
        Snmpd stopping = Snmpd.start(own);
        try {
            SnmpOptions options =
                    SnmpOptions.builder(credentials)
                            .port(stopping.port)
                            .timeout(Duration.ofMillis(200))
                            .retries(0)
                            .refreshInterval(Duration.ofMillis(300))
                            .build();
            try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
                directory.observe(LOCAL);
                await(() -> directory.counters().pollsOk() >= 1, "a first poll");
                Map<Long, InterfaceInfo> answered = directory.interfaces(LOCAL);
                String sysName = directory.exporterName(LOCAL).orElseThrow();
                stopping.close();
                await(
                        () -> directory.counters().pollsTimedOut() >= 1,
                        "a poll of the stopped agent");

                assertThat(directory.interfaces(LOCAL)).isEqualTo(answered);
                assertThat(directory.exporterName(LOCAL)).contains(sysName);
                assertThat(directory.lastError(LOCAL)).isPresent();
            }
        } finally {
            stopping.close();
        }
    }

    @Test
    void wrongCommunityTimesOutLeavesAnswersEmptyAndRetries() throws Exception {
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1", "wrong-community")));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .port(snmpd.port)
                        .timeout(Duration.ofMillis(200))
                        .retries(1)
                        .failedRetryInterval(Duration.ofMillis(300))
                        .build();
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(LOCAL);
            await(() -> directory.counters().pollsTimedOut() >= 2, "two timed-out polls");

            assertThat(directory.lastError(LOCAL))
                    .hasValueSatisfying(
                            e -> assertThat(e).contains("no answer after 2 tries of 200 ms"));
            assertThat(directory.exporterName(LOCAL)).isEmpty();
            assertThat(directory.lookupInterface(LOCAL, 1)).isEmpty();
            assertThat(directory.counters().pollsOk()).isZero();
        }
    }

    @Test
    void wrongV3PassphraseTimesOut() throws Exception {
        SnmpCredentials credentials =
                new SnmpCredentials(
                        List.of(
                                SnmpCredential.v3(
                                        "127.0.0.1/32",
                                        Snmpd.USER,
                                        AuthProtocol.SHA,
                                        "not-the-passphrase",
                                        PrivProtocol.AES,
                                        Snmpd.PRIV_PASS)));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .port(snmpd.port)
                        .timeout(Duration.ofMillis(500))
                        .retries(0)
                        .build();
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(LOCAL);
            await(
                    () ->
                            directory.counters().pollsFailed()
                                            + directory.counters().pollsTimedOut()
                                    >= 1,
                    "a refused v3 poll");
            // snmpd reports usmStatsWrongDigests without authentication; SNMP4J, as RFC 3412
            // asks, does not take an unauthenticated report for an authenticated request.
            assertThat(directory.counters().pollsTimedOut()).isEqualTo(1);
            assertThat(directory.lastError(LOCAL))
                    .hasValueSatisfying(
                            e -> assertThat(e).contains("or it refuses the v3 user or its keys"));
            assertThat(directory.exporterName(LOCAL)).isEmpty();
            assertThat(directory.interfaces(LOCAL)).isEmpty();
        }
    }

    @Test
    void silentV3AgentTimesOutDuringDiscovery() throws Exception {
        try (DatagramSocket silent = new DatagramSocket(0, LOCAL)) {
            SnmpCredentials credentials =
                    new SnmpCredentials(
                            List.of(
                                    SnmpCredential.v3(
                                            "127.0.0.1/32",
                                            Snmpd.USER,
                                            AuthProtocol.SHA,
                                            Snmpd.AUTH_PASS,
                                            PrivProtocol.AES,
                                            Snmpd.PRIV_PASS)));
            SnmpOptions options =
                    SnmpOptions.builder(credentials)
                            .port(silent.getLocalPort())
                            .timeout(Duration.ofSeconds(1))
                            .retries(1)
                            .build();
            try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
                long start = System.nanoTime();
                directory.observe(LOCAL);
                assertThat(directory.lookupInterface(LOCAL, 1)).isEmpty();
                assertThat(System.nanoTime() - start)
                        .isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
                await(
                        () ->
                                directory.counters().pollsTimedOut()
                                                + directory.counters().pollsFailed()
                                        >= 1,
                        "a v3 poll that nobody answers");
                assertThat(directory.counters().pollsTimedOut()).isEqualTo(1);
                assertThat(directory.inFlight()).isZero();
            }
        }
    }

    @Test
    void agentDownNeverBlocksLookups() throws Exception {
        int closedPort = Snmpd.freeUdpPort();
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1/32", "public")));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .port(closedPort)
                        .timeout(Duration.ofSeconds(3))
                        .retries(0)
                        .build();
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            long start = System.nanoTime();
            for (int i = 0; i < 30_000; i++) {
                directory.observe(LOCAL);
                directory.lookupInterface(LOCAL, i % 8);
                directory.exporterName(LOCAL);
            }
            // 90,000 calls while the poll waits on nobody: well under its 3 s timeout (on a loaded
            // machine too).
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(1_500));
            await(
                    () ->
                            directory.counters().pollsTimedOut()
                                            + directory.counters().pollsFailed()
                                    >= 1,
                    "a failed poll");
            assertThat(directory.lastError(LOCAL)).isPresent();
            assertThat(directory.lookupInterface(LOCAL, 1)).isEmpty();
            assertThat(directory.inFlight()).isZero();
        }
    }

    @Test
    void silentAgentsTimeOutWithinTheInFlightBound() throws Exception {
        try (DatagramSocket silent = new DatagramSocket(0, LOCAL)) {
            AtomicInteger received = new AtomicInteger();
            Thread reader =
                    new Thread(
                            () -> {
                                byte[] buf = new byte[65_535];
                                while (!silent.isClosed()) {
                                    try {
                                        silent.receive(new DatagramPacket(buf, buf.length));
                                        received.incrementAndGet();
                                    } catch (java.io.IOException e) {
                                        return;
                                    }
                                }
                            });
            reader.setDaemon(true);
            reader.start();
            SnmpCredentials credentials =
                    new SnmpCredentials(List.of(SnmpCredential.v2c("10.0.0.0/8", "public")));
            SnmpOptions.Builder b =
                    SnmpOptions.builder(credentials)
                            .maxInFlight(3)
                            .timeout(Duration.ofMillis(150))
                            .retries(1)
                            .failedRetryInterval(Duration.ofMinutes(10));
            for (int i = 1; i <= 12; i++) {
                b.agent(
                        InetAddress.getByName("10.0.0." + i),
                        new InetSocketAddress(LOCAL, silent.getLocalPort()));
            }
            try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(b.build())) {
                for (int i = 1; i <= 12; i++) {
                    directory.observe(InetAddress.getByName("10.0.0." + i));
                }
                int maxSeen = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (directory.counters().pollsTimedOut() < 12 && System.nanoTime() < deadline) {
                    maxSeen = Math.max(maxSeen, directory.inFlight());
                    Thread.sleep(5);
                }
                assertThat(directory.counters().pollsTimedOut()).isEqualTo(12);
                assertThat(maxSeen).isBetween(1, 3);
                // One request and one retry each, nothing more.
                assertThat(received.get()).isEqualTo(24);
                assertThat(directory.lookupInterface(InetAddress.getByName("10.0.0.1"), 1))
                        .isEmpty();
            }
        }
    }

    @Test
    void boundedInterfacesAndStringsCutWhatSnmpwalkReturns() throws Exception {
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1", Snmpd.COMMUNITY)));
        SnmpOptions options =
                SnmpOptions.builder(credentials)
                        .port(snmpd.port)
                        .maxInterfaces(2)
                        .maxStringChars(3)
                        .maxRepetitions(1)
                        .build();
        Map<Long, String> names = snmpd.walk(snmpd.v2c(), ExporterPoll.IF_NAME.toDottedString());
        try (SnmpInterfaceDirectory directory = SnmpInterfaceDirectory.start(options)) {
            directory.observe(LOCAL);
            await(() -> directory.counters().pollsOk() >= 1, "a bounded poll");
            Map<Long, InterfaceInfo> held = directory.interfaces(LOCAL);
            assertThat(held).hasSize(Math.min(2, names.size()));
            for (Map.Entry<Long, InterfaceInfo> e : held.entrySet()) {
                String full = names.get(e.getKey());
                assertThat(e.getValue().name())
                        .isEqualTo(full.substring(0, Math.min(3, full.length())));
            }
            if (names.size() > 2) {
                assertThat(directory.counters().tablesCut()).isEqualTo(1);
            }
            // The loopback alias is longer than 3 characters.
            assertThat(directory.counters().valuesTruncated()).isPositive();
        }
    }

    @Test
    void exportersBeyondTheBoundDropTheLeastRecentlyObserved() throws Exception {
        // No credentials cover these: nothing goes on the network, only the table is bounded.
        SnmpCredentials credentials =
                new SnmpCredentials(List.of(SnmpCredential.v2c("10.0.0.0/8", "public")));
        try (SnmpInterfaceDirectory directory =
                SnmpInterfaceDirectory.start(
                        SnmpOptions.builder(credentials).maxExporters(5).build())) {
            for (int i = 1; i <= 5; i++) {
                directory.observe(InetAddress.getByName("198.51.100." + i));
            }
            long first = directory.clock();
            await(() -> directory.clock() != first, "a scheduler tick");
            for (int i = 6; i <= 10; i++) {
                directory.observe(InetAddress.getByName("198.51.100." + i));
            }
            await(() -> directory.exporterCount() == 5, "the table back at its bound");
            for (int i = 1; i <= 10; i++) {
                assertThat(directory.holds(InetAddress.getByName("198.51.100." + i)))
                        .as("198.51.100.%d held", i)
                        .isEqualTo(i > 5);
            }
            for (int i = 11; i <= 100; i++) {
                directory.observe(InetAddress.getByName("198.51.100." + i));
            }
            assertThat(directory.exporterCount()).isLessThanOrEqualTo(10);
            await(() -> directory.exporterCount() == 5, "the table back at its bound");
            assertThat(directory.counters().exportersDropped()).isEqualTo(95);
            // 1..10, then at least 11..15 (more if a tick dropped some meanwhile).
            assertThat(directory.counters().exportersWithoutCredentials()).isBetween(15L, 100L);
        }
    }

    private static void assertEqualsSnmpwalk(
            SnmpInterfaceDirectory directory, InetAddress exporter, List<String> auth)
            throws Exception {
        Map<Long, String> names = snmpd.walk(auth, ExporterPoll.IF_NAME.toDottedString());
        Map<Long, String> descrs = snmpd.walk(auth, ExporterPoll.IF_DESCR.toDottedString());
        Map<Long, String> aliases = snmpd.walk(auth, ExporterPoll.IF_ALIAS.toDottedString());
        Map<Long, String> speeds = snmpd.walk(auth, ExporterPoll.IF_HIGH_SPEED.toDottedString());
        String sysName = snmpd.get(auth, ExporterPoll.SYS_NAME.toDottedString());

        assertThat(names).isNotEmpty();
        assertThat(aliases.values()).contains("loopback of the test agent");
        assertThat(directory.exporterName(exporter)).contains(sysName);
        Map<Long, InterfaceInfo> held = directory.interfaces(exporter);
        assertThat(held.keySet()).containsExactlyElementsOf(names.keySet());
        for (long ifIndex : names.keySet()) {
            String alias = aliases.getOrDefault(ifIndex, "");
            InterfaceInfo expected =
                    new InterfaceInfo(
                            names.get(ifIndex),
                            alias.isEmpty() ? descrs.get(ifIndex) : alias,
                            Long.parseLong(speeds.get(ifIndex)));
            assertThat(directory.lookupInterface(exporter, ifIndex))
                    .as("ifIndex %d", ifIndex)
                    .contains(expected);
        }
        assertThat(directory.lookupInterface(exporter, 999_999)).isEmpty();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
