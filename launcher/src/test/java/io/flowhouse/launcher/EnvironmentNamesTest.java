// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.config.AgentKeys;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.jobs.config.JobKeys;
import io.flowhouse.loadgen.LoadgenKeys;
import io.flowhouse.services.ServicesKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher passes its environment on to the services, the agent and the job, and every schema
 * reads {@code FLOWHOUSE_*}: no variable may mean two keys.
 */
class EnvironmentNamesTest {

    @Test
    void everyFlowhouseVariableMeansOneKey() {
        Map<String, String> seen = new HashMap<>();
        for (ConfigSchema schema :
                List.of(
                        JobKeys.SCHEMA,
                        ServicesKeys.SCHEMA,
                        AgentKeys.SCHEMA,
                        LoadgenKeys.SCHEMA)) {
            for (Key<?> k : schema.keys()) {
                String before = seen.put(schema.envName(k), schema.fullName(k));
                assertThat(before).as(schema.envName(k)).isNull();
            }
        }
        // Variables the launcher reads itself.
        assertThat(seen).doesNotContainKeys("FLOWHOUSE_FLINK_REST", "FLOWHOUSE_MVN_ARGS");
    }
}
