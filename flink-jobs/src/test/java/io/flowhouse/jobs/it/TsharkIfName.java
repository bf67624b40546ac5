// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.TestDataDir;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** tshark's decode of a softflowd capture's options data, the reference for the names we store. */
final class TsharkIfName {

    private TsharkIfName() {}

    /** The one interface name ({@code cflow.if_name}) the capture's options records carry. */
    static String of(String capture) throws Exception {
        Process p =
                new ProcessBuilder(
                                "tshark",
                                "-r",
                                TestDataDir.file(capture).toString(),
                                "-d",
                                "udp.port==2055,cflow",
                                "-d",
                                "udp.port==4739,cflow",
                                "-T",
                                "fields",
                                "-e",
                                "cflow.if_name",
                                "-Y",
                                "cflow.if_name")
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        TreeSet<String> names = new TreeSet<>(List.of(out.strip().split("\n")));
        assertThat(names).as(capture + " interface names").hasSize(1);
        return names.first();
    }
}
