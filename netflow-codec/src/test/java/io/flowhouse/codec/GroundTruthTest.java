// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every test capture decodes to the ground truth of testdata/README.md (nfcapd 1.7.1's decode,
 * which matches the packet trace): flow records, packets and bytes.
 */
class GroundTruthTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "netflow-v5-softflowd.pcap, 117, 2279, 30012, 21699804",
        "netflow-v5-nfreplay.pcap, 76, 2279, 30012, 21699804",
        "netflow-v9-softflowd.pcap, 164, 2991, 42173, 31011641",
        "netflow-v9-pmacct.pcap, 580, 2995, 42173, 31011641",
        "netflow-v9-nfreplay.pcap, 210, 2991, 42173, 31011641",
        "ipfix-softflowd.pcap, 215, 2991, 42173, 31011641",
        "ipfix-pmacct.pcap, 580, 2995, 42173, 31011641",
        "ipfix-biflow-softflowd.pcap, 121, 1673, 42173, 31011641",
    })
    void capturesDecodeToGroundTruth(
            String file, int datagrams, int records, long packets, long bytes) throws Exception {
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        long n = 0;
        long pk = 0;
        long by = 0;
        Map<DecodeProblem.Kind, Integer> problems = new EnumMap<>(DecodeProblem.Kind.class);
        for (CaptureDatagrams.Datagram d : ds) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), cache);
            for (FlowRecord f : r.records()) {
                n++;
                pk += f.packets() + f.reversePackets();
                by += f.bytes() + f.reverseBytes();
            }
            r.problemCounts().asMap().forEach((k, c) -> problems.merge(k, c, Integer::sum));
        }
        assertThat(ds).hasSize(datagrams);
        assertThat(n).as("records").isEqualTo(records);
        assertThat(pk).as("packets").isEqualTo(packets);
        assertThat(by).as("bytes").isEqualTo(bytes);
        assertThat(problems)
                .as("problems")
                .doesNotContainKeys(
                        DecodeProblem.Kind.TEMPLATE_MISSING,
                        DecodeProblem.Kind.RECORD_TRUNCATED,
                        DecodeProblem.Kind.SET_LENGTH_PAST_END,
                        DecodeProblem.Kind.TIME_BASE_MISSING);
        System.out.println(file + ": problems " + problems);
    }
}
