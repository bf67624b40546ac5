// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code snmp-probe} against a real snmpd prints what snmpwalk reads from it. */
class SnmpProbeCommandITCase {

    @TempDir Path dir;

    @Test
    void printsSysNameAndEveryInterfaceAsSnmpwalkReadsThem() throws Exception {
        try (Snmpd snmpd = Snmpd.start(dir)) {
            Path credentials = dir.resolve("snmp.yaml");
            Files.writeString(
                    credentials,
                    "credentials:\n  - cidr: 127.0.0.0/8\n    community: "
                            + Snmpd.COMMUNITY
                            + "\n");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code =
                    SnmpProbeCommand.run(
                            new String[] {
                                "127.0.0.1",
                                "--set",
                                "enrich.snmp.credentials-file=" + credentials,
                                "--set",
                                "enrich.snmp.port=" + snmpd.port
                            },
                            Map.of(),
                            new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8));
            String printed = out.toString(StandardCharsets.UTF_8);

            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Cli.OK);
            assertThat(printed)
                    .contains("exporter 127.0.0.1, agent 127.0.0.1:" + snmpd.port + ", v2c")
                    .contains(
                            "sysName: "
                                    + snmpd.get(
                                            snmpd.v2c(), ExporterPoll.SYS_NAME.toDottedString()))
                    .contains("polls ok 1");
            for (Map.Entry<Long, String> name :
                    snmpd.walk(snmpd.v2c(), ExporterPoll.IF_NAME.toDottedString()).entrySet()) {
                assertThat(printed)
                        .containsPattern(
                                "(?m)^ +" + name.getKey() + " +\\d+  " + name.getValue() + " ");
            }
        }
    }

    @Test
    void anAgentThatDoesNotAnswerExitsOneWithTheReason() throws Exception {
        Path credentials = dir.resolve("snmp.yaml");
        Files.writeString(credentials, "credentials: [{cidr: 127.0.0.1, community: public}]\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                SnmpProbeCommand.run(
                        new String[] {
                            "127.0.0.1",
                            "--set",
                            "enrich.snmp.credentials-file=" + credentials,
                            "--set",
                            "enrich.snmp.port=" + Snmpd.freeUdpPort(),
                            "--set",
                            "enrich.snmp.timeout=200ms",
                            "--set",
                            "enrich.snmp.retries=0"
                        },
                        Map.of(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isEqualTo(Cli.FAILURE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("snmp-probe: no answer after 1 tries of 200 ms");
    }
}
