// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code ./flowhouse test} is run by the script itself ({@code mvn -B -ntp verify}), because Maven
 * rebuilds the jars this JVM runs from; this class carries its help text.
 */
@Command(
        name = "test",
        mixinStandardHelpOptions = true,
        customSynopsis = "./flowhouse test [--faults] [MAVEN ARGS...]",
        description = {
            "every unit and integration test against real services (mvn verify)",
            "",
            "Runs every test: mvn -B -ntp verify over all modules, unit tests (*Test, surefire)",
            "and integration tests (*ITCase, failsafe). The integration tests start the REAL",
            "services they need themselves and stop them afterwards: an in-process Kafka KRaft",
            "broker, clickhouse-server child processes, Flink MiniClusters, and for the launcher",
            "the whole ./flowhouse services set on non-default ports. clickhouse-server is",
            "installed with apt first when it is missing and the user is root.",
            "",
            "With CI set in the environment (.ci/run does), the pom's ci profile sets",
            "-Dflowhouse.it.required=true: a missing service fails a test instead of skipping it.",
            "",
            "  --faults        only the fault suite (launcher/FAULTS.md): agent SIGKILL and",
            "                  restart, broker down 30 s, spool overflow, malformed corpus,",
            "                  template flood, Kafka TLS; prints the fault table",
            "  MAVEN ARGS      passed to mvn, e.g. -pl sinks -am, -Dit.test=FooITCase"
        })
public final class TestCommand implements Callable<Integer> {

    private final LaunchContext ctx;

    TestCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        ctx.err()
                .println(
                        "flowhouse test: run it through the ./flowhouse script (it runs mvn verify)");
        return ExitCode.USAGE;
    }
}
