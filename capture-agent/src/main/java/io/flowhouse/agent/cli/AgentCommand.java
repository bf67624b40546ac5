// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import io.flowhouse.agent.CaptureAgent;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentConfigLoader;
import io.flowhouse.codec.packet.ParseResult;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;

/** The {@code agent} command: parses flags, runs a {@link CaptureAgent}, reports at the end. */
public final class AgentCommand {

    public int run(String[] args) {
        AgentConfig config;
        try {
            config = AgentConfigLoader.fromArgs(args);
        } catch (AgentConfigLoader.HelpRequestedException e) {
            System.out.println(e.getMessage());
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("flowhouse agent: " + e.getMessage());
            return 2;
        }
        return run(config);
    }

    /** Runs the agent with {@code config} until it is stopped, or its packet file is delivered. */
    public int run(AgentConfig config) {
        CaptureAgent agent;
        try {
            agent = CaptureAgent.start(config);
        } catch (Exception e) {
            System.err.println("flowhouse agent: could not start: " + e);
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook =
                new Thread(
                        () -> {
                            agent.close();
                            stopped.countDown();
                        },
                        "flowhouse-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int code = 0;
        try {
            if (!config.udp().enabled() && config.packets().file() != null) {
                // A file alone: read it, deliver everything, stop.
                long packets = agent.packetsDone().get();
                agent.close();
                System.out.printf(
                        "flowhouse agent: %s: %d packets, %d parsed, %d batches,"
                                + " %d records acknowledged by kafka, %d spooled, %d dropped%n",
                        config.packets().file(),
                        packets,
                        agent.metrics().packetCount(ParseResult.OK),
                        agent.metrics().packetBatches(),
                        agent.metrics().sentCount(config.kafka().packetsTopic()),
                        agent.metrics().spooledCount(),
                        agent.metrics().droppedCount());
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // already shutting down
                }
            } else {
                stopped.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            System.err.println("flowhouse agent: packet capture failed: " + e.getCause());
            agent.close();
            code = 1;
        }
        return code;
    }
}
