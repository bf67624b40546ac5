// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.services.Http;
import io.flowhouse.services.LocalService;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;

/**
 * The JobManager of the local standalone session cluster ({@code
 * StandaloneSessionClusterEntrypoint}): REST API and web UI on localhost, jar uploads into the
 * state directory. Its heap and off-heap sizes are derived from {@code
 * jobmanager.memory.process.size} the way Flink's start scripts derive them.
 */
public final class FlinkJobManager implements LocalService {

    static final String NAME = "flink-jobmanager";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServicesConfig config;
    private final FlinkConf conf;

    public FlinkJobManager(ServicesConfig config) {
        this.config = config;
        this.conf = new FlinkConf(config);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String endpoint() {
        return config.flinkRestUrl()
                + " (REST + web UI, RPC localhost:"
                + config.flinkRpcPort()
                + ")";
    }

    @Override
    public List<Integer> ports() {
        return List.of(config.flinkRestPort(), config.flinkRpcPort());
    }

    @Override
    public String marker() {
        return NAME + "@" + config.stateDir();
    }

    @Override
    public Path workDir() {
        return conf.dir();
    }

    @Override
    public void prepare() throws IOException {
        conf.write();
    }

    @Override
    public List<String> command() {
        Configuration flink = conf.load();
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(flink);
        List<String> command =
                new ArrayList<>(
                        conf.javaPrefix(
                                FlinkConf.split(
                                        JobManagerProcessUtils.generateJvmParametersStr(
                                                spec, flink)),
                                NAME,
                                marker()));
        command.add("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        command.add("--configDir");
        command.add(conf.confDir().toString());
        command.add("--executionMode");
        command.add("cluster");
        command.addAll(FlinkConf.split(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
        return command;
    }

    @Override
    public Health probe() {
        try {
            Http.Response response =
                    Http.get(config.flinkRestUrl() + "/overview", Duration.ofSeconds(3));
            if (!response.ok()) {
                return Health.down("REST /overview: HTTP " + response.status());
            }
            JsonNode overview = JSON.readTree(response.body());
            return Health.up(
                    "Flink "
                            + overview.path("flink-version").asText("?")
                            + ", "
                            + overview.path("taskmanagers").asInt()
                            + " TaskManager(s), "
                            + overview.path("slots-available").asInt()
                            + "/"
                            + overview.path("slots-total").asInt()
                            + " slots free, "
                            + overview.path("jobs-running").asInt()
                            + " job(s) running");
        } catch (IOException e) {
            return Health.down("no REST answer");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down("interrupted");
        }
    }
}
