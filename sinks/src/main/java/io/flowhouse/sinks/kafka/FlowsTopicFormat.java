// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import java.util.Locale;

/** The value format of the decoded-flows topic. */
public enum FlowsTopicFormat {
    /** One {@code flowhouse.v1.Flow} per record (the published schema), not length-prefixed. */
    FLOWHOUSE,
    /**
     * goflow2's {@code flowpb.FlowMessage}, length-delimited (a varint length, then the message),
     * as goflow2 writes it with {@code -format=bin}, so goflow2's consumers read it unchanged.
     */
    GOFLOW2;

    /** The word used in keys and flags. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
