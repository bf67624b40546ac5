// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

/** Where the receive paths hand records: the {@link RawFlowPublisher} in the agent. */
@FunctionalInterface
public interface RecordSink {

    /** Takes a record; must not block. */
    void publish(Outbound record);
}
