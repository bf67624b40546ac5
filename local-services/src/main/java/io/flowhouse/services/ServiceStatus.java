// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.util.OptionalLong;

/**
 * What {@code status} reports for one service.
 *
 * @param kind which service
 * @param name the process's name: the service's, numbered from the second of a kind ({@code
 *     flink-taskmanager-2})
 * @param pid the process id when the process from the pid file runs
 * @param answers whether the service answered its probe
 * @param endpoint where it listens
 * @param detail what the probe said
 */
public record ServiceStatus(
        ServiceKind kind,
        String name,
        OptionalLong pid,
        boolean answers,
        String endpoint,
        String detail) {

    public boolean running() {
        return pid.isPresent();
    }

    /** "answers", "running" (process alive, no answer) or "stopped". */
    public String state() {
        if (pid.isEmpty()) {
            return answers ? "foreign" : "stopped";
        }
        return answers ? "answers" : "running";
    }
}
