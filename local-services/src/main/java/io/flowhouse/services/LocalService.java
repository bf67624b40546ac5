// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One service run as a background process ({@link ServiceProcess}): what to write before it starts,
 * the command line, and how to ask whether it serves.
 */
public interface LocalService {

    /** Short name: pid file, log file and the name in {@code status}. */
    String name();

    /** Where it answers, for {@code status}. */
    String endpoint();

    /** The TCP ports it binds on 127.0.0.1; a start checks they are free first. */
    List<Integer> ports();

    /** A string the process's command line contains, to recognise it by pid. */
    String marker();

    /** Writes its configuration and prepares its storage; run before every start. */
    void prepare() throws IOException;

    /** The command line; {@link ManagedProcess} adds {@code setsid}. */
    List<String> command();

    /** Extra environment variables. */
    default Map<String, String> environment() {
        return Map.of();
    }

    /** The working directory of the process. */
    Path workDir();

    /** Asks the service whether it serves; never throws. */
    Health probe();

    /** Called with a process of this service found running (started earlier, maybe elsewhere). */
    default void adopt(ProcessHandle running) {}

    /**
     * Whether a probe that answers counts only while our own process runs (a TaskManager that was
     * killed still shows in the JobManager's list until it times out).
     */
    default boolean answersOnlyWithProcess() {
        return false;
    }

    /** The answer of a probe: whether the service serves, and what it said. */
    record Health(boolean answers, String detail) {
        public static Health up(String detail) {
            return new Health(true, detail);
        }

        public static Health down(String detail) {
            return new Health(false, detail);
        }
    }
}
