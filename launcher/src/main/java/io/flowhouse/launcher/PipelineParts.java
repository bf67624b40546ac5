// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Which parts of the pipeline are built: the commands that run it check here first. */
final class PipelineParts {

    static final String AGENT_MAIN = "io.flowhouse.agent.CaptureAgentMain";
    static final String LOADGEN_MAIN = "io.flowhouse.loadgen.LoadgenMain";
    static final String PIPELINE_JOB = JobCommand.DEFAULT_ENTRY_CLASS;

    private PipelineParts() {}

    static boolean hasClass(String name) {
        try {
            Class.forName(name, false, PipelineParts.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** What is missing for {@code up}: the agent, the job jar; empty when all is there. */
    static List<String> missingForUp(Path root) {
        List<String> missing = new ArrayList<>();
        if (!hasClass(AGENT_MAIN)) {
            missing.add("capture agent (" + AGENT_MAIN + ", module capture-agent)");
        }
        Path jar = JobCommand.defaultJar(root);
        if (!Files.isRegularFile(jar)) {
            missing.add("pipeline job jar (" + jar + ", module flink-jobs)");
        }
        return missing;
    }

    /** What is missing for the demo, which runs the job in-process and feeds it with loadgen. */
    static List<String> missingForDemo() {
        List<String> missing = new ArrayList<>();
        if (!hasClass(AGENT_MAIN)) {
            missing.add("capture agent (" + AGENT_MAIN + ", module capture-agent)");
        }
        if (!hasClass(PIPELINE_JOB)) {
            missing.add("pipeline job (" + PIPELINE_JOB + ", module flink-jobs)");
        }
        if (!hasClass(LOADGEN_MAIN)) {
            missing.add("traffic generator (" + LOADGEN_MAIN + ", module loadgen)");
        }
        return missing;
    }
}
