// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A {@link LocalService} run as a {@link ManagedProcess}: started when it does not run yet, then
 * probed until it answers; stopped or killed through its pid file. The one way every local service
 * process starts, for {@code ./flowhouse services} and for the tests' temporary servers alike.
 */
public final class ServiceProcess {

    private static final Duration PROBE_INTERVAL = Duration.ofMillis(250);

    private final LocalService service;
    private final ManagedProcess process;
    private final Duration startTimeout;
    private final Duration stopTimeout;

    /**
     * @param pidDir where the pid file goes
     * @param logDir where the process's stdout and stderr go ({@code NAME.out})
     */
    public ServiceProcess(
            LocalService service,
            Path pidDir,
            Path logDir,
            Duration startTimeout,
            Duration stopTimeout) {
        this.service = service;
        this.process = new ManagedProcess(service.name(), pidDir, logDir, service.marker());
        this.startTimeout = startTimeout;
        this.stopTimeout = stopTimeout;
    }

    public LocalService service() {
        return service;
    }

    /** The log file of the process's stdout and stderr. */
    public Path logFile() {
        return process.logFile();
    }

    /** The last {@code lines} lines of that log. */
    public String logTail(int lines) {
        return process.logTail(lines);
    }

    /**
     * Starts the service unless its process already runs, and waits until it answers. A service
     * that does not come up is stopped again and the error carries the end of its log.
     */
    public void start() {
        awaitStarted(launch());
    }

    /**
     * Starts the process unless it already runs, without waiting for an answer: the nodes of a
     * quorum answer only once a majority of them runs. {@link #awaitStarted} waits for it.
     *
     * @return the running process, and whether it ran already
     */
    public Launched launch() {
        Optional<ProcessHandle> running = process.running();
        if (running.isPresent()) {
            service.adopt(running.get());
            return new Launched(running.get(), true);
        }
        for (int port : service.ports()) {
            if (!LocalPorts.isFree(port)) {
                throw new IllegalStateException(
                        service.name()
                                + ": port "
                                + port
                                + " on 127.0.0.1 is in use by another process;"
                                + " stop it or choose another port");
            }
        }
        try {
            Files.createDirectories(service.workDir());
            service.prepare();
            return new Launched(
                    process.start(service.command(), service.workDir(), service.environment()),
                    false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + service.name(), e);
        }
    }

    /** A process {@link #launch} started, or found running ({@code adopted}). */
    public record Launched(ProcessHandle handle, boolean adopted) {}

    /**
     * Waits until a launched process answers; stops it again when it does not, unless it ran
     * before.
     */
    public void awaitStarted(Launched launched) {
        try {
            awaitAnswer(launched.handle());
        } catch (RuntimeException e) {
            if (!launched.adopted()) {
                process.stop(stopTimeout);
            }
            throw e;
        }
    }

    private void awaitAnswer(ProcessHandle handle) {
        LocalService.Health[] last = {LocalService.Health.down("not probed")};
        boolean answers =
                Retry.within(startTimeout)
                        .every(PROBE_INTERVAL)
                        .until(
                                () -> {
                                    if (!handle.isAlive()) {
                                        throw new IllegalStateException(
                                                service.name()
                                                        + " exited during start; end of "
                                                        + process.logFile()
                                                        + ":\n"
                                                        + process.logTail(30));
                                    }
                                    last[0] = service.probe();
                                    return last[0].answers();
                                });
        if (!answers) {
            throw new IllegalStateException(
                    service.name()
                            + " did not answer within "
                            + startTimeout.toSeconds()
                            + " s ("
                            + last[0].detail()
                            + "); end of "
                            + process.logFile()
                            + ":\n"
                            + process.logTail(30));
        }
    }

    /** SIGTERM, then SIGKILL after the stop timeout; true when a process was stopped. */
    public boolean stop() {
        return process.stop(stopTimeout);
    }

    /** {@code kill -9}: no clean shutdown, as after a crash. */
    public boolean kill() {
        return process.kill();
    }

    /** The pid of our running process. */
    public OptionalLong pid() {
        return process.running().map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty());
    }

    public boolean isRunning() {
        return process.running().isPresent();
    }

    /** Whether the process runs and what the probe says. */
    public LocalService.Health health() {
        Optional<ProcessHandle> running = process.running();
        running.ifPresent(service::adopt);
        if (running.isEmpty() && service.answersOnlyWithProcess()) {
            return LocalService.Health.down("not running");
        }
        return service.probe();
    }
}
