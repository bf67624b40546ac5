// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code ./flowhouse test} is run by the script itself ({@code mvn -B -ntp verify}), because Maven
 * rebuilds the jars this JVM runs from; this class carries its help text.
 */
public final class TestCommand implements Command {

    @Override
    public String name() {
        return "test";
    }

    @Override
    public String summary() {
        return "every unit and integration test against real services (mvn verify)";
    }

    static String help() {
        return """
                Usage: ./flowhouse test [--faults] [MAVEN ARGS...]

                Runs every test: mvn -B -ntp verify over all modules, unit tests (*Test, surefire)
                and integration tests (*ITCase, failsafe). The integration tests start the REAL
                services they need themselves and stop them afterwards: an in-process Kafka KRaft
                broker, clickhouse-server child processes, Flink MiniClusters, and for the launcher
                the whole ./flowhouse services set on non-default ports. clickhouse-server is
                installed with apt first when it is missing and the user is root.

                With CI set in the environment (.ci/run does), the pom's ci profile sets
                -Dflowhouse.it.required=true: a missing service fails a test instead of skipping it.

                  --faults        only the fault suite (launcher/FAULTS.md): agent SIGKILL and
                                  restart, broker down 30 s, spool overflow, malformed corpus,
                                  template flood, Kafka TLS; prints the fault table
                  MAVEN ARGS      passed to mvn, e.g. -pl sinks -am, -Dit.test=FooITCase
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(help());
            return 0;
        }
        err.println("flowhouse test: run it through the ./flowhouse script (it runs mvn verify)");
        return EXIT_USAGE;
    }
}
