// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import io.flowhouse.codec.flow.FlowRecord;
import java.util.Map;

/**
 * What {@code decode --enrich} adds to each flow it prints: the launcher builds one from the job's
 * enrichment configuration (this module has no enrichment).
 */
public interface FlowAnnotator {

    /**
     * Appends to the flow's JSON object (its fields so far, the closing brace not yet written) one
     * more field, starting with a comma.
     *
     * @param interfaceNames the options data's interface names (IE 82) of the flow's exporter
     *     scope, by ifIndex, as decoded so far in the file
     */
    void json(FlowRecord flow, Map<Long, String> interfaceNames, StringBuilder sb);

    /** Appends the flow's table columns (after its other columns, starting with a space). */
    void table(FlowRecord flow, Map<Long, String> interfaceNames, StringBuilder sb);

    /** The header of {@link #table}'s columns (starting with a space). */
    String tableHeader();
}
