// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What {@link SnmpKeys} resolve to, before the credentials file is read: serializable, so the job
 * ships the file's path to its operators and each reads the secrets where it runs (they never
 * travel in the job graph).
 */
public record SnmpSettings(
        String credentialsFile,
        List<String> agents,
        int port,
        int maxInFlight,
        Duration timeout,
        int retries,
        Duration refreshInterval,
        Duration failedRetryInterval,
        int maxExporters,
        int maxInterfaces,
        int maxStringChars,
        int maxRepetitions)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    public SnmpSettings {
        agents = List.copyOf(agents);
    }

    /**
     * Reads the credentials file and checks every value.
     *
     * @throws IllegalArgumentException naming the bad key or credentials entry
     */
    public SnmpOptions options() {
        SnmpOptions.Builder b =
                SnmpOptions.builder(SnmpCredentials.load(Path.of(credentialsFile)))
                        .port(port)
                        .maxInFlight(maxInFlight)
                        .timeout(timeout)
                        .retries(retries)
                        .refreshInterval(refreshInterval)
                        .failedRetryInterval(failedRetryInterval)
                        .maxExporters(maxExporters)
                        .maxInterfaces(maxInterfaces)
                        .maxStringChars(maxStringChars)
                        .maxRepetitions(maxRepetitions);
        for (String agent : agents) {
            SnmpKeys.addAgent(b, agent, port);
        }
        return b.build();
    }
}
