// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.services.Http;
import io.flowhouse.services.LocalService;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * One TaskManager of the local standalone session cluster ({@code TaskManagerRunner}); with
 * several, each is its own process with its own name, pid file and log ({@code flink-taskmanager},
 * {@code flink-taskmanager-2}, ...), sharing the cluster's configuration directory. Every start
 * gets a fresh resource id, so after a {@code kill -9} the probe waits for the new TaskManager to
 * register instead of seeing the dead one that the JobManager has not yet timed out.
 */
public final class FlinkTaskManager implements LocalService {

    static final String NAME = "flink-taskmanager";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServicesConfig config;
    private final FlinkConf conf;
    private final String name;
    private String resourceId;

    /** The first TaskManager. */
    public FlinkTaskManager(ServicesConfig config) {
        this(config, 0);
    }

    /** TaskManager {@code index} (from 0) of the cluster's {@code flink-taskmanagers}. */
    public FlinkTaskManager(ServicesConfig config, int index) {
        this.config = config;
        this.conf = new FlinkConf(config);
        this.name = nameOf(index);
    }

    /** {@code flink-taskmanager} for the first, {@code flink-taskmanager-2} for the second, ... */
    public static String nameOf(int index) {
        return index == 0 ? NAME : NAME + "-" + (index + 1);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String endpoint() {
        return config.flinkSlots() + " slot(s), registered at localhost:" + config.flinkRpcPort();
    }

    @Override
    public List<Integer> ports() {
        return List.of();
    }

    @Override
    public String marker() {
        return name + "@" + config.stateDir();
    }

    @Override
    public Path workDir() {
        return conf.dir();
    }

    @Override
    public void prepare() throws IOException {
        conf.write();
        resourceId = "flowhouse-" + name + "-" + Long.toString(System.currentTimeMillis(), 36);
    }

    @Override
    public List<String> command() {
        Configuration flink = conf.load();
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(flink);
        List<String> command =
                new ArrayList<>(
                        conf.javaPrefix(
                                FlinkConf.split(ProcessMemoryUtils.generateJvmParametersStr(spec)),
                                name,
                                marker()));
        command.add("org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        command.add("--configDir");
        command.add(conf.confDir().toString());
        command.addAll(FlinkConf.split(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
        if (resourceId != null) {
            command.add("-D");
            command.add("taskmanager.resource-id=" + resourceId);
        }
        return command;
    }

    /** Takes the resource id from the command line of a TaskManager started earlier. */
    @Override
    public void adopt(ProcessHandle process) {
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            String prefix = "taskmanager.resource-id=";
            for (String arg : Files.readString(cmdline, StandardCharsets.UTF_8).split("\0")) {
                if (arg.startsWith(prefix)) {
                    resourceId = arg.substring(prefix.length());
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // Without it any registered TaskManager counts.
        }
    }

    /** The JobManager lists a killed TaskManager until its heartbeat times out. */
    @Override
    public boolean answersOnlyWithProcess() {
        return true;
    }

    /** Answers when the JobManager lists this TaskManager (by the resource id of this start). */
    @Override
    public Health probe() {
        try {
            Http.Response response =
                    Http.get(config.flinkRestUrl() + "/taskmanagers", Duration.ofSeconds(3));
            if (!response.ok()) {
                return Health.down("REST /taskmanagers: HTTP " + response.status());
            }
            for (JsonNode tm : JSON.readTree(response.body()).path("taskmanagers")) {
                String id = tm.path("id").asText();
                if (resourceId == null || id.equals(resourceId)) {
                    return Health.up(
                            "registered as "
                                    + id
                                    + ", "
                                    + tm.path("freeSlots").asInt()
                                    + "/"
                                    + tm.path("slotsNumber").asInt()
                                    + " slots free");
                }
            }
            return Health.down("not registered with the JobManager");
        } catch (IOException e) {
            return Health.down("JobManager REST does not answer");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down("interrupted");
        }
    }
}
