// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.enrich.InterfaceInfo;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The directory against agents that send more than any bound: it keeps only what the bounds allow.
 */
class HostileAgentITCase {

    private static final InetAddress LOCAL = InetAddress.getLoopbackAddress();

    @Test
    void anEndlessTableAndHugeStringsStopAtTheBounds() throws Exception {
        try (HostileAgent agent = HostileAgent.start(HostileAgent.Mode.ENDLESS);
                SnmpInterfaceDirectory directory =
                        SnmpInterfaceDirectory.start(options(agent).maxInterfaces(100).build())) {
            directory.observe(LOCAL);
            await(() -> directory.counters().pollsOk() >= 1, "a poll cut at the bound");

            Map<Long, InterfaceInfo> held = directory.interfaces(LOCAL);
            assertThat(held).hasSize(100);
            assertThat(held.keySet()).first().isEqualTo(1L);
            assertThat(held.values())
                    .allSatisfy(
                            i -> {
                                assertThat(i.name()).hasSize(40);
                                assertThat(i.description()).hasSize(40);
                                assertThat(i.speedMbps()).isEqualTo(100_000);
                            });
            assertThat(directory.exporterName(LOCAL))
                    .hasValueSatisfying(n -> assertThat(n).hasSize(40));
            assertThat(directory.counters().tablesCut()).isEqualTo(1);
            // sysName, then ifName and ifAlias (or ifDescr) of each row kept: all cut.
            assertThat(directory.counters().valuesTruncated()).isGreaterThanOrEqualTo(1 + 2 * 100);
        }
    }

    @Test
    void aTableThatAnswersTheSameRowForeverFailsThePoll() throws Exception {
        try (HostileAgent agent = HostileAgent.start(HostileAgent.Mode.LOOP);
                SnmpInterfaceDirectory directory =
                        SnmpInterfaceDirectory.start(options(agent).build())) {
            directory.observe(LOCAL);
            await(
                    () ->
                            directory.counters().pollsFailed()
                                            + directory.counters().pollsTimedOut()
                                    >= 1,
                    "a failed poll");

            assertThat(directory.counters().pollsFailed()).isEqualTo(1);
            assertThat(directory.lastError(LOCAL))
                    .hasValueSatisfying(e -> assertThat(e).contains("out of order"));
            assertThat(directory.interfaces(LOCAL)).isEmpty();
            assertThat(directory.exporterName(LOCAL)).isEmpty();
        }
    }

    private static SnmpOptions.Builder options(HostileAgent agent) {
        return SnmpOptions.builder(
                        new SnmpCredentials(List.of(SnmpCredential.v2c("127.0.0.1", "public"))))
                .port(agent.port)
                .timeout(Duration.ofSeconds(2))
                .maxStringChars(40)
                .maxRepetitions(10);
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
