// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import io.flowhouse.codec.flow.FlowRecord;
import java.io.Serializable;

/**
 * The row ids of a flow, as the job writes them to {@code flows}: the job supplies them, so the
 * topic and the table always carry the same id.
 */
public interface FlowRowIds extends Serializable {

    /** {@code row_id}: the id, or its low 64 bits. */
    long low(FlowRecord r);

    /** {@code row_id_hi}: the high 64 bits of a 128-bit id, or 0. */
    long high(FlowRecord r);
}
