// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.services;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One service that {@link ServicesManager} runs as a background process in the state dir. */
interface LocalService {

    /** Short name: pid file, log file and the name in {@code status}. */
    String name();

    /** Where it answers, for {@code status}. */
    String endpoint();

    /** The TCP ports it binds on 127.0.0.1; {@code up} checks they are free first. */
    List<Integer> ports();

    /** A string the process's command line contains, to recognise it by pid. */
    String marker();

    /** Writes its configuration and prepares its storage; run before every start. */
    void prepare() throws IOException;

    /** The command line; the launcher adds {@code setsid}. */
    List<String> command();

    /** Extra environment variables. */
    default Map<String, String> environment() {
        return Map.of();
    }

    /** The working directory of the process. */
    Path workDir();

    /** Asks the service whether it serves; never throws. */
    Health probe();

    /** The answer of a probe: whether the service serves, and what it said. */
    record Health(boolean answers, String detail) {
        static Health up(String detail) {
            return new Health(true, detail);
        }

        static Health down(String detail) {
            return new Health(false, detail);
        }
    }
}
