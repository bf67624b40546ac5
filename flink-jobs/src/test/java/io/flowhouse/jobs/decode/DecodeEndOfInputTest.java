// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.config.DecodeSettings;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The end of the raw input (a drained stop) ends event time at the decode step: the final watermark
 * goes downstream even when the raw input, and so the operator's output, went idle first, because
 * the source task itself drops its final watermark while idle.
 */
@SuppressWarnings("try") // the harness's close() throws Exception
class DecodeEndOfInputTest {

    @ParameterizedTest(name = "quiet after {0} s")
    @ValueSource(longs = {0, 30})
    void theEndOfTheRawInputSendsTheFinalWatermarkAfterIdleness(long quietAfterSeconds)
            throws Exception {
        DecodeOperator operator =
                new DecodeOperator(
                        DecodeSettings.defaults(), Duration.ofSeconds(quietAfterSeconds));
        try (KeyedTwoInputStreamOperatorTestHarness<
                        ExporterKey, RawDatagram, ArchivedTemplate, FlowRecord>
                h =
                        new KeyedTwoInputStreamOperatorTestHarness<>(
                                operator,
                                new ExporterKeys.OfDatagram(DecodeSettings.defaults().scopeMode()),
                                new ExporterKeys.OfArchived(DecodeSettings.defaults().scopeMode()),
                                ExporterKeyTypeInfo.INSTANCE)) {
            h.open();
            h.processWatermark1(new Watermark(1_000));
            h.processWatermarkStatus1(WatermarkStatus.IDLE);
            h.endInput1();
            List<Object> out = new ArrayList<>(h.getOutput());
            assertThat(out).last().isEqualTo(Watermark.MAX_WATERMARK);
            int idle = out.lastIndexOf(WatermarkStatus.IDLE);
            if (idle >= 0) {
                assertThat(out.subList(idle, out.size())).contains(WatermarkStatus.ACTIVE);
            }
        }
    }
}
