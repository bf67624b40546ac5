// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.agent.CaptureAgentMain;
import io.flowhouse.console.ConsoleMain;
import io.flowhouse.jobs.FlowPipelineJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts of the pipeline that run outside the launcher's JVM: the agent (a child JVM on the
 * launcher's class path) and the job jar that the cluster runs. The commands that start them check
 * here first.
 */
final class PipelineParts {

    static final String AGENT_MAIN = CaptureAgentMain.class.getName();
    static final String PIPELINE_JOB = FlowPipelineJob.class.getName();
    static final String CONSOLE_MAIN = ConsoleMain.class.getName();

    private PipelineParts() {}

    /** What is missing for {@code up}: the job jar; empty when all is there. */
    static List<String> missingForUp(Path root) {
        List<String> missing = new ArrayList<>();
        Path jar = JobCommand.defaultJar(root);
        if (!Files.isRegularFile(jar)) {
            missing.add("pipeline job jar (" + jar + ", module flink-jobs)");
        }
        return missing;
    }
}
