// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

/**
 * The exit codes of every {@code ./flowhouse} command (also the agent's, loadgen's and decode's
 * own: 0, 1, 2 mean the same there).
 *
 * <pre>
 *   0    ok
 *   1    failure at run time (a service did not come up, a job failed, a query failed)
 *   2    usage: an unknown command or option, a bad value (the message says which)
 *   3    a check did not hold: services status with a service down; loadgen --require-rate
 *        with the rate not held
 *   4    not built yet: a part the command needs is missing (the message says how to build it)
 *   130  interrupted
 * </pre>
 */
public final class ExitCode {

    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;
    public static final int CHECK_FAILED = 3;
    public static final int NOT_BUILT = 4;
    public static final int INTERRUPTED = 130;

    private ExitCode() {}
}
