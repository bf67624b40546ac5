// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.testdata;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.testkit.TestDataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The flows of the shared captures ({@code shared/testdata/*.pcap}), decoded with the codec's
 * {@link NetflowDecoder}, with the ground truth of {@code testdata/README.md}.
 */
public final class CaptureFlows {

    /**
     * One capture and what it must add up to.
     *
     * @param file pcap name under testdata/
     * @param records flow records (biflows count once)
     * @param packets packets, forward plus reverse
     * @param bytes bytes, forward plus reverse
     */
    public record Capture(String file, int records, long packets, long bytes) {
        @Override
        public String toString() {
            return file;
        }

        public boolean biflows() {
            return file.contains("biflow");
        }
    }

    /** Every capture of the shared test data with its ground truth. */
    public static final List<Capture> ALL =
            List.of(
                    new Capture("netflow-v5-softflowd.pcap", 2279, 30_012, 21_699_804),
                    new Capture("netflow-v5-nfreplay.pcap", 2279, 30_012, 21_699_804),
                    new Capture("netflow-v9-softflowd.pcap", 2991, 42_173, 31_011_641),
                    new Capture("netflow-v9-pmacct.pcap", 2995, 42_173, 31_011_641),
                    new Capture("netflow-v9-nfreplay.pcap", 2991, 42_173, 31_011_641),
                    new Capture("ipfix-softflowd.pcap", 2991, 42_173, 31_011_641),
                    new Capture("ipfix-pmacct.pcap", 2995, 42_173, 31_011_641),
                    new Capture("ipfix-biflow-softflowd.pcap", 1673, 42_173, 31_011_641));

    private CaptureFlows() {}

    /** Decodes every datagram of a capture; skips (or fails in CI) if the file is missing. */
    public static List<FlowRecord> decode(Capture capture) {
        Path pcap = TestDataDir.file(capture.file());
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        List<FlowRecord> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(pcap)) {
            while (r.next()) {
                UdpDatagram d =
                        extractor.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (d == null) {
                    continue;
                }
                DecodeContext ctx =
                        new DecodeContext(
                                new ExporterKey(d.src(), d.srcPort()),
                                d.timestampNanos() / 1_000_000L);
                DecodeResult result = decoder.decode(d.payload(), ctx, cache);
                out.addAll(result.records());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (io.flowhouse.codec.DecodeException e) {
            throw new IllegalStateException("decoding " + capture.file(), e);
        }
        return out;
    }

    /** Packets, forward plus reverse. */
    public static long packets(List<FlowRecord> flows) {
        long n = 0;
        for (FlowRecord f : flows) {
            n += f.packets() + f.reversePackets();
        }
        return n;
    }

    /** Bytes, forward plus reverse. */
    public static long bytes(List<FlowRecord> flows) {
        long n = 0;
        for (FlowRecord f : flows) {
            n += f.bytes() + f.reverseBytes();
        }
        return n;
    }
}
