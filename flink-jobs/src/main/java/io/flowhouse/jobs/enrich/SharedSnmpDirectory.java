// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.enrich.snmp.SnmpInterfaceDirectory;
import io.flowhouse.enrich.snmp.SnmpSettings;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * One SNMP poller per TaskManager (JVM) and settings, shared by every subtask that uses it (the
 * enrich stage's and the exporter statistics'): an exporter is polled once per TaskManager, not
 * once per subtask. Counted references; the last {@link #release} closes it.
 */
final class SharedSnmpDirectory {

    private record Ref(SnmpInterfaceDirectory directory, int[] users) {}

    private static final Map<SnmpSettings, Ref> OPEN = new HashMap<>();

    private SharedSnmpDirectory() {}

    /**
     * The poller of these settings, started by the first caller.
     *
     * @throws IOException when it cannot start
     * @throws IllegalArgumentException for a bad credentials file
     */
    static synchronized SnmpInterfaceDirectory acquire(SnmpSettings settings) throws IOException {
        Ref r = OPEN.get(settings);
        if (r == null) {
            r = new Ref(SnmpInterfaceDirectory.start(settings.options()), new int[1]);
            OPEN.put(settings, r);
        }
        r.users[0]++;
        return r.directory;
    }

    /** Gives back what {@link #acquire} returned; the last user closes it. */
    static synchronized void release(SnmpSettings settings, SnmpInterfaceDirectory directory) {
        Ref r = OPEN.get(settings);
        if (r == null || r.directory != directory) {
            directory.close();
            return;
        }
        if (--r.users[0] == 0) {
            OPEN.remove(settings);
            r.directory.close();
        }
    }
}
