// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * One exporter announces 100,000 templates over the wire; the decoder's template cache keeps its
 * per-exporter cap, and another exporter's template, learned before the flood, still decodes its
 * data afterwards.
 */
class TemplateFloodTest {

    private static final int FLOOD = 100_000;
    private static final int PER_MESSAGE = 60;
    private static final int CAP = 4_096;

    private static final ExporterKey FLOODER = new ExporterKey(IpAddress.parse("192.0.2.66"), 4739);
    private static final ExporterKey VICTIM = new ExporterKey(IpAddress.parse("192.0.2.7"), 4739);

    /** An IPFIX message with {@code count} templates (ids from {@code firstId}) of 4 fields. */
    private static byte[] templates(long domain, int firstId, int count, int sequence) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + count * 20);
        b.putShort((short) 10).putShort((short) b.capacity()).putInt(1_700_000_000);
        b.putInt(sequence).putInt((int) domain);
        b.putShort((short) 2).putShort((short) (4 + count * 20));
        for (int i = 0; i < count; i++) {
            b.putShort((short) (firstId + i)).putShort((short) 4);
            b.putShort((short) 8).putShort((short) 4).putShort((short) 12).putShort((short) 4);
            b.putShort((short) 1).putShort((short) 8).putShort((short) 2).putShort((short) 8);
        }
        return b.array();
    }

    /** An IPFIX data set for template 256 with one record of {@code octets}/{@code packets}. */
    private static byte[] data(long domain, long octets, long packets) {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 + 24);
        b.putShort((short) 10).putShort((short) b.capacity()).putInt(1_700_000_000);
        b.putInt(0).putInt((int) domain);
        b.putShort((short) 256).putShort((short) 28);
        b.putInt(0x0a000001).putInt(0x0a000002).putLong(octets).putLong(packets);
        return b.array();
    }

    private static DecodeResult decode(
            NetflowDecoder decoder, InMemoryTemplateCache cache, ExporterKey from, byte[] message)
            throws Exception {
        return decoder.decode(ByteBuffer.wrap(message), new DecodeContext(from, 0L), cache);
    }

    @Test
    void aHundredThousandTemplatesStayUnderTheCapAndEvictNobody() throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache(CAP);
        assertThat(decode(decoder, cache, VICTIM, templates(1, 256, 1, 0)).learned()).hasSize(1);

        int announced = 0;
        int learned = 0;
        int messages = 0;
        while (announced < FLOOD) {
            long domain = announced / 60_000;
            int firstId = 256 + announced % 60_000;
            int count = Math.min(PER_MESSAGE, Math.min(FLOOD - announced, 60_256 - firstId));
            DecodeResult r =
                    decode(decoder, cache, FLOODER, templates(domain, firstId, count, messages++));
            learned += r.learned().size();
            announced += count;
        }

        assertThat(announced).isEqualTo(FLOOD);
        assertThat(cache.templateCount(FLOODER)).isEqualTo(CAP);
        assertThat(cache.templateCount(VICTIM)).isOne();
        assertThat(cache.size()).isEqualTo(CAP + 1);
        assertThat(learned)
                .as("templates the decoder reported as learned")
                .isLessThanOrEqualTo(FLOOD);

        DecodeResult victim = decode(decoder, cache, VICTIM, data(1, 1_500, 3));
        assertThat(victim.problems()).isEmpty();
        assertThat(victim.records()).hasSize(1);
        assertThat(victim.records().get(0).bytes()).isEqualTo(1_500);
        assertThat(victim.records().get(0).packets()).isEqualTo(3);

        // Templates past the cap are not held: their data is reported, not decoded.
        DecodeResult overflow = decode(decoder, cache, FLOODER, data(1, 10, 1));
        assertThat(overflow.records()).isEmpty();
        assertThat(overflow.problems()).isNotEmpty();
    }
}
