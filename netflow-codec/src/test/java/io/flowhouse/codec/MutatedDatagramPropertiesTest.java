// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Mutated real datagrams (every capture in testdata/) decode or throw a {@link DecodeException};
 * nothing else escapes, and what they report is bounded. The long run (10 million inputs, with the
 * allocation bound) is {@code FuzzMain}.
 */
class MutatedDatagramPropertiesTest {

    static final List<CaptureDatagrams.Datagram> SEEDS = load();

    private static List<CaptureDatagrams.Datagram> load() {
        List<CaptureDatagrams.Datagram> all = new ArrayList<>();
        for (String f :
                new String[] {
                    "netflow-v5-softflowd.pcap",
                    "netflow-v9-softflowd.pcap",
                    "netflow-v9-pmacct.pcap",
                    "netflow-v9-nfreplay.pcap",
                    "ipfix-softflowd.pcap",
                    "ipfix-pmacct.pcap",
                    "ipfix-biflow-softflowd.pcap"
                }) {
            try {
                all.addAll(CaptureDatagrams.datagrams(f));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }

    @Property(tries = 5000)
    void onlyDecodeExceptionsEscape(
            @ForAll @IntRange(min = 0, max = 1_000_000) int pick, @ForAll long seed) {
        Random rnd = new Random(seed);
        InMemoryTemplateCache cache = new InMemoryTemplateCache(64);
        NetflowDecoder decoder = new NetflowDecoder();
        CaptureDatagrams.Datagram base = SEEDS.get(pick % SEEDS.size());
        // Learn the templates from the first datagrams of the same exporter, so data sets decode.
        for (CaptureDatagrams.Datagram d : SEEDS.subList(0, Math.min(SEEDS.size(), 40))) {
            try {
                decoder.decode(d.buffer(), d.context(), cache);
            } catch (DecodeException e) {
                // seeds are valid; ignore
            }
        }
        byte[] m = Mutator.mutate(base.payload(), rnd);
        try {
            DecodeResult r = decoder.decode(ByteBuffer.wrap(m), base.context(), cache);
            // Problems are counted, a few described; missing ids are kept once each, a few.
            assertThat(r.problems().size())
                    .isLessThanOrEqualTo(DecodeResult.MAX_PROBLEM_DETAILS)
                    .isLessThanOrEqualTo(r.problemCounts().total());
            assertThat(r.problems().isEmpty()).isEqualTo(r.problemCounts().isEmpty());
            assertThat(r.missingTemplateIds())
                    .doesNotHaveDuplicates()
                    .hasSizeLessThanOrEqualTo(DecodeResult.MAX_MISSING_TEMPLATE_IDS)
                    .hasSizeLessThanOrEqualTo(r.problemCount(DecodeProblem.Kind.TEMPLATE_MISSING));
            assertThat(r.missingTemplateIds().isEmpty())
                    .isEqualTo(r.problemCount(DecodeProblem.Kind.TEMPLATE_MISSING) == 0);
        } catch (DecodeException expected) {
            // named failure: fine
        }
    }
}
