// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.sinks.kafka.FlowsTopicFormat;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./flowhouse up --flows-topic [TOPIC] --flows-topic-format F}: the job flags they make. */
class FlowsTopicFlagsTest {

    @TempDir Path dir;

    private PipelineCommand.Up parseUp(String... args) {
        LaunchContext ctx =
                new LaunchContext(
                        new FlowhouseHome(dir, dir.resolve(".flowhouse")),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        CommandLine cl = FlowhouseMain.commandLine(ctx);
        return (PipelineCommand.Up) cl.parseArgs(args).subcommand().commandSpec().userObject();
    }

    private static PipelineSettings job(List<String> args) {
        return PipelineSettings.from(
                JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
    }

    @Test
    void aBareFlagTurnsTheTopicOnWithItsDefaultName() {
        PipelineCommand.Up up = parseUp("up", "--flows-topic");
        assertThat(up.flowsTopic).isEqualTo("flows.decoded");
        List<String> args = PipelineCommand.flowsTopicJobArgs(up.flowsTopic, up.flowsTopicFormat);
        assertThat(job(args).flowsTopic().topic()).isEqualTo("flows.decoded");
        assertThat(job(args).flowsTopic().format()).isEqualTo(FlowsTopicFormat.FLOWHOUSE);
    }

    @Test
    void aTopicAndAFormat() {
        PipelineCommand.Up up =
                parseUp("up", "--flows-topic", "decoded.site-a", "--flows-topic-format", "goflow2");
        List<String> args = PipelineCommand.flowsTopicJobArgs(up.flowsTopic, up.flowsTopicFormat);
        assertThat(args)
                .containsExactly(
                        "--flows-topic.enabled",
                        "true",
                        "--flows-topic.topic",
                        "decoded.site-a",
                        "--flows-topic.format",
                        "goflow2");
        assertThat(job(args).flowsTopic().topic()).isEqualTo("decoded.site-a");
        assertThat(job(args).flowsTopic().format()).isEqualTo(FlowsTopicFormat.GOFLOW2);
    }

    @Test
    void offWithoutTheFlagsAndABadFormatIsAUsageError() {
        PipelineCommand.Up up = parseUp("up");
        assertThat(PipelineCommand.flowsTopicJobArgs(up.flowsTopic, up.flowsTopicFormat)).isEmpty();
        assertThat(job(List.of()).flowsTopic()).isNull();
        assertThatThrownBy(() -> PipelineCommand.flowsTopicJobArgs(null, "json"))
                .isInstanceOf(UsageError.class)
                .hasMessageContaining("--flows-topic-format json");
    }
}
