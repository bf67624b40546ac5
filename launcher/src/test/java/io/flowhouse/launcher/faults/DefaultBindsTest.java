// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentKeys;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Only the flow ports listen beyond loopback by default: the agent's UDP listeners are dual-stack
 * wildcards (exporters are remote), its metrics endpoint is on 127.0.0.1, in the built-in defaults
 * and in the documented default file alike.
 */
class DefaultBindsTest {

    @Test
    void agentListensBeyondLoopbackOnlyOnItsFlowPorts() throws Exception {
        AgentConfig defaults = AgentKeys.defaults();
        assertThat(defaults.udp().listeners())
                .extracting(AgentConfig.Listener::port)
                .containsExactlyInAnyOrder(
                        AgentKeys.NETFLOW_PORT, AgentKeys.IPFIX_PORT, AgentKeys.SFLOW_PORT);
        assertThat(defaults.metrics().host()).isEqualTo("127.0.0.1");

        String documented;
        try (InputStream in = AgentKeys.class.getResourceAsStream("/flowhouse-agent.yaml")) {
            assertThat(in).as("flowhouse-agent.yaml on the class path").isNotNull();
            documented = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        AgentConfig fromFile = AgentKeys.fromYaml(documented);
        assertThat(fromFile.metrics().host()).isEqualTo("127.0.0.1");
        assertThat(fromFile.udp().listeners())
                .extracting(AgentConfig.Listener::port)
                .containsExactlyInAnyOrder(
                        AgentKeys.NETFLOW_PORT, AgentKeys.IPFIX_PORT, AgentKeys.SFLOW_PORT);
    }
}
