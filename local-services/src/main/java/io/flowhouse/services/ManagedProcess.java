// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A background process that outlives the launcher: started in its own session ({@code setsid}) so a
 * closing terminal does not take it down, output appended to a log file, its pid kept in a pid
 * file. It is stopped only through that pid file, and only after checking that the pid still
 * belongs to a process whose command line names this state directory, so a recycled pid is never
 * killed.
 */
public final class ManagedProcess {

    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final String name;
    private final Path pidFile;
    private final Path logFile;
    private final String marker;

    /**
     * @param name the service name, also the pid and log file names
     * @param pidDir where {@code NAME.pid} lives
     * @param logDir where {@code NAME.out} (stdout and stderr) lives
     * @param marker a string that the process's command line contains, e.g. its state directory
     */
    public ManagedProcess(String name, Path pidDir, Path logDir, String marker) {
        this.name = name;
        this.pidFile = pidDir.resolve(name + ".pid");
        this.logFile = logDir.resolve(name + ".out");
        this.marker = marker;
    }

    public String name() {
        return name;
    }

    public Path logFile() {
        return logFile;
    }

    public Path pidFile() {
        return pidFile;
    }

    /** Starts {@code command} in {@code workDir} and records its pid. */
    public ProcessHandle start(List<String> command, Path workDir, Map<String, String> env) {
        Optional<ProcessHandle> running = running();
        if (running.isPresent()) {
            throw new IllegalStateException(
                    name + " already runs as pid " + running.get().pid() + " (" + pidFile + ")");
        }
        List<String> argv = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            // Its own session: Ctrl-C on the launcher or a closed terminal leaves it running.
            argv.add(SETSID.toString());
        }
        argv.addAll(command);
        ProcessBuilder builder =
                new ProcessBuilder(argv)
                        .directory(workDir.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(env);
        try {
            Files.createDirectories(pidFile.getParent());
            Files.createDirectories(logFile.getParent());
            Files.writeString(
                    logFile,
                    "---- starting "
                            + name
                            + ": "
                            + String.join(" ", argv)
                            + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            Process process = builder.start();
            Files.writeString(pidFile, Long.toString(process.pid()), StandardCharsets.UTF_8);
            return process.toHandle();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    /** The process named in the pid file, when it is alive and still ours. */
    public Optional<ProcessHandle> running() {
        Optional<Long> pid = recordedPid();
        if (pid.isEmpty()) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid.get()).filter(ProcessHandle::isAlive).filter(this::isOurs);
    }

    /** The pid in the pid file, alive or not. */
    public Optional<Long> recordedPid() {
        if (!Files.isRegularFile(pidFile)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(Files.readString(pidFile).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * SIGTERM to the process and its descendants, SIGKILL to whatever is left after {@code
     * timeout}, then removes the pid file. Returns true when something was stopped.
     */
    public boolean stop(Duration timeout) {
        Optional<ProcessHandle> running = running();
        if (running.isEmpty()) {
            deletePidFile();
            return false;
        }
        ProcessHandle process = running.get();
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(0, process);
        tree.forEach(ProcessHandle::destroy);
        if (!awaitExit(tree, timeout)) {
            tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            if (!awaitExit(tree, Duration.ofSeconds(10))) {
                throw new IllegalStateException(
                        name + " (pid " + process.pid() + ") survived SIGKILL");
            }
        }
        deletePidFile();
        return true;
    }

    /** SIGKILL, no clean shutdown: for fault tests. */
    public boolean kill() {
        Optional<ProcessHandle> running = running();
        if (running.isEmpty()) {
            return false;
        }
        ProcessHandle process = running.get();
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(0, process);
        tree.forEach(ProcessHandle::destroyForcibly);
        awaitExit(tree, Duration.ofSeconds(10));
        deletePidFile();
        return true;
    }

    /** The last {@code lines} lines of the log, for error messages. */
    public String logTail(int lines) {
        return tail(logFile, lines);
    }

    static String tail(Path file, int lines) {
        if (!Files.isRegularFile(file)) {
            return "(no log at " + file + ")";
        }
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join(
                    System.lineSeparator(),
                    all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    private boolean isOurs(ProcessHandle process) {
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        String commandLine;
        if (Files.isReadable(cmdline)) {
            try {
                commandLine = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return false;
            }
        } else {
            commandLine = process.info().commandLine().orElse("");
        }
        return commandLine.contains(marker);
    }

    private static boolean awaitExit(List<ProcessHandle> processes, Duration timeout) {
        CompletableFuture<?>[] exits =
                processes.stream().map(ProcessHandle::onExit).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(exits).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return processes.stream().noneMatch(ProcessHandle::isAlive);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void deletePidFile() {
        try {
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + pidFile, e);
        }
    }
}
