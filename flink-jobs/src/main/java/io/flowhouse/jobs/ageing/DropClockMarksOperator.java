// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.codec.packet.PacketSummary;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Drops the agent's clock marks once they moved the source's watermark, and ends event time when
 * the packets input ends (a drained stop, or the end of a bounded run): the final watermark goes
 * downstream, so every open packet flow ends before the writers flush. Flink's source task sends
 * that final watermark itself but drops it while its output is idle (FLINK-40499), which a quiet
 * packets topic is after {@code packets.idleness}; the decode step does the same for the raw topic
 * ({@code DecodeOperator#endInput}).
 */
final class DropClockMarksOperator extends AbstractStreamOperator<PacketSummary>
        implements OneInputStreamOperator<PacketSummary, PacketSummary>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private transient boolean outputIdle;
    private transient boolean ended;

    @Override
    public void processElement(StreamRecord<PacketSummary> element) {
        if (!PacketClockMark.isMark(element.getValue())) {
            output.collect(element);
        }
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        outputIdle = status.isIdle();
        super.processWatermarkStatus(status);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (!ended) {
            super.processWatermark(mark);
            // The source's own final watermark got through (its output was active): sent once.
            ended = mark.getTimestamp() == Long.MAX_VALUE;
        }
    }

    @Override
    public void endInput() throws Exception {
        if (ended) {
            return;
        }
        if (outputIdle) {
            // An idle output drops watermarks.
            output.emitWatermarkStatus(WatermarkStatus.ACTIVE);
            outputIdle = false;
        }
        super.processWatermark(Watermark.MAX_WATERMARK);
        ended = true;
    }
}
