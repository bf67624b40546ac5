// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.FlowRecordMapper;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every time encoding becomes epoch milliseconds; sampling rates come from options data. */
class TimeAndSamplingTest {

    private static final ExporterKey EXPORTER = new ExporterKey(IpAddress.parse("192.0.2.9"), 4739);
    private static final long EXPORT_SECS = 1_705_320_000L;
    private static final long T = 1_705_319_990_123L; // a flow start, epoch ms

    private final NetflowDecoder decoder = new NetflowDecoder();
    private final InMemoryTemplateCache cache = new InMemoryTemplateCache();
    private final IpfixEncoder encoder = new IpfixEncoder();

    private DecodeResult ipfix(Template t, Consumer<IpfixEncoder.Message> record) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(1024);
        IpfixEncoder.Message m = encoder.begin(b, 1, EXPORT_SECS).template(t);
        m.data(t.templateId());
        record.accept(m);
        m.endRecord().finish();
        return decoder.decode(b.flip(), new DecodeContext(EXPORTER, 0), cache);
    }

    private FlowRecord one(Template t, Consumer<IpfixEncoder.Message> record) throws Exception {
        DecodeResult r = ipfix(t, record);
        assertThat(r.problems()).isEmpty();
        assertThat(r.records()).hasSize(1);
        return r.records().get(0);
    }

    private static Template template(int id, int... idAndLength) {
        FieldSpecifier[] f = new FieldSpecifier[idAndLength.length / 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = FieldSpecifier.of(idAndLength[2 * i], idAndLength[2 * i + 1]);
        }
        return Template.of(id, List.of(f));
    }

    @Test
    void seconds() throws Exception {
        FlowRecord r = one(template(300, 150, 4, 151, 4), m -> m.u32(T / 1000).u32(T / 1000 + 5));
        assertThat(r.flowStartMillis()).isEqualTo(T / 1000 * 1000);
        assertThat(r.flowEndMillis()).isEqualTo(T / 1000 * 1000 + 5000);
    }

    @Test
    void microsecondsAndNanosecondsAreNtpFormat() throws Exception {
        FlowRecord r =
                one(
                        template(301, 154, 8, 157, 8),
                        m ->
                                m.u64(FlowRecordMapper.millisToNtp(T))
                                        .u64(FlowRecordMapper.millisToNtp(T + 1500)));
        assertThat(r.flowStartMillis()).isEqualTo(T);
        assertThat(r.flowEndMillis()).isEqualTo(T + 1500);
        assertThat(FlowRecordMapper.ntpToMillis(FlowRecordMapper.millisToNtp(0))).isZero();
    }

    @Test
    void ofTwoFieldsForOneTimeTheLaterInTheTemplateWins() throws Exception {
        long earlier = T / 1000 - 60;
        FlowRecord a = one(template(310, 150, 4, 152, 8, 8, 4), m -> m.u32(earlier).u64(T).u32(7));
        assertThat(a.flowStartMillis()).isEqualTo(T);
        FlowRecord b = one(template(311, 152, 8, 150, 4, 8, 4), m -> m.u64(T).u32(earlier).u32(7));
        assertThat(b.flowStartMillis()).isEqualTo(earlier * 1000);
        assertThat(b.srcAddr().ipv4()).isEqualTo(7);
    }

    @Test
    void deltaMicrosecondsCountBackFromExportTime() throws Exception {
        FlowRecord r = one(template(302, 158, 4, 159, 4), m -> m.u32(9_000_000).u32(2_500_000));
        assertThat(r.flowStartMillis()).isEqualTo(EXPORT_SECS * 1000 - 9000);
        assertThat(r.flowEndMillis()).isEqualTo(EXPORT_SECS * 1000 - 2500);
    }

    @Test
    void durationGivesTheMissingEnd() throws Exception {
        FlowRecord r = one(template(303, 152, 8, 161, 4), m -> m.u64(T).u32(777));
        assertThat(r.flowStartMillis()).isEqualTo(T);
        assertThat(r.flowEndMillis()).isEqualTo(T + 777);
    }

    @Test
    void sysUpTimeNeedsSystemInitTimeFromOptionsData() throws Exception {
        Template data = template(304, 22, 4, 21, 4, 2, 8);
        DecodeResult before = ipfix(data, m -> m.u32(1000).u32(3000).u64(1));
        assertThat(before.problems())
                .extracting(DecodeProblem::kind)
                .containsExactly(DecodeProblem.Kind.TIME_BASE_MISSING);
        Template options =
                new Template(305, List.of(FieldSpecifier.of(144, 4), FieldSpecifier.of(160, 8)), 1);
        DecodeResult o = ipfix(options, m -> m.u32(1).u64(T - 1000));
        assertThat(o.optionsRecords()).isEqualTo(1);
        assertThat(cache.options(o.scope()).systemInitTimeMillis()).isEqualTo(T - 1000);
        FlowRecord r = one(data, m -> m.u32(1000).u32(3000).u64(1));
        assertThat(r.flowStartMillis()).isEqualTo(T);
        assertThat(r.flowEndMillis()).isEqualTo(T + 2000);
    }

    @Test
    void v9UptimeWrapStillLandsBeforeExport() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(64);
        b.putShort((short) 9)
                .putShort((short) 2)
                .putInt(100)
                .putInt((int) EXPORT_SECS)
                .putInt(1)
                .putInt(0);
        b.putShort((short) 0).putShort((short) 16).putShort((short) 256).putShort((short) 2);
        b.putShort((short) 22).putShort((short) 4).putShort((short) 21).putShort((short) 4);
        b.putShort((short) 256).putShort((short) 12).putInt(0xffff_ff00).putInt(50);
        DecodeResult r = decoder.decode(b.flip(), new DecodeContext(EXPORTER, 0), cache);
        FlowRecord f = r.records().get(0);
        assertThat(f.flowStartMillis())
                .isEqualTo(EXPORT_SECS * 1000 - 356); // 256 before wrap + 100
        assertThat(f.flowEndMillis()).isEqualTo(EXPORT_SECS * 1000 - 50);
    }

    @Test
    void samplingRateBySamplerIdFromOptionsData() throws Exception {
        Template options =
                new Template(310, List.of(FieldSpecifier.of(48, 2), FieldSpecifier.of(34, 4)), 1);
        ipfix(options, m -> m.u16(5).u32(100));
        ipfix(options, m -> m.u16(6).u32(1000));
        Template data = template(311, 48, 2, 2, 4);
        assertThat(one(data, m -> m.u16(5).u32(1)).samplingRate()).isEqualTo(100);
        assertThat(one(data, m -> m.u16(6).u32(1)).samplingRate()).isEqualTo(1000);
        assertThat(one(data, m -> m.u16(7).u32(1)).samplingRate()).isEqualTo(1); // unknown sampler
        assertThat(
                        one(template(312, 305, 4, 306, 4, 2, 4), m -> m.u32(1).u32(63).u32(1))
                                .samplingRate())
                .isEqualTo(64);
    }

    @Test
    void encoderSamplingOptionsSetTheScopeRate() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(256);
        encoder.encodeSamplingOptions(b, 1, EXPORT_SECS, OptionsDataIds.ANY, 512);
        DecodeResult r = decoder.decode(b.flip(), new DecodeContext(EXPORTER, 0), cache);
        assertThat(r.optionsRecords()).isEqualTo(1);
        assertThat(cache.options(r.scope()).samplingRate(42)).isEqualTo(512);
        assertThat(one(template(313, 2, 4), m -> m.u32(1)).samplingRate()).isEqualTo(512);
    }

    @Test
    void v9SoftflowdOptionsCarryInterfaceNamesAndSampling() throws Exception {
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("netflow-v9-softflowd.pcap").subList(0, 2)) {
            decoder.decode(d.buffer(), d.context(), cache);
        }
        CaptureDatagrams.Datagram d =
                CaptureDatagrams.datagrams("netflow-v9-softflowd.pcap").get(0);
        DecodeResult r = decoder.decode(d.buffer(), d.context(), cache);
        assertThat(r.optionsRecords()).isPositive();
        assertThat(cache.options(r.scope()).interfaceNames()).isNotEmpty();
    }

    /** Sampler id 0 in the encoder's options means "all" to most collectors. */
    private static final class OptionsDataIds {
        static final long ANY = 0;
    }
}
