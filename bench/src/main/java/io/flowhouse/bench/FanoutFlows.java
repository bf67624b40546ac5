// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.loadgen.export.ExportDatagram;
import io.flowhouse.loadgen.export.ExportProtocol;
import io.flowhouse.loadgen.export.SimulatedExporter;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The input of the fan-out stages ({@code bench ipfix}, {@code bench zmq}): real flows, decoded by
 * the codec from the shared captures (v5, v9, IPFIX, biflows; 21,194 flows), or, without them, from
 * loadgen's IPFIX datagrams (seed 1). The stages send the pool round and round.
 */
final class FanoutFlows {

    /** The shared captures of NetFlow/IPFIX (the packet capture is not flow export). */
    private static final String[] CAPTURES = {
        "netflow-v5-softflowd.pcap",
        "netflow-v5-nfreplay.pcap",
        "netflow-v9-softflowd.pcap",
        "netflow-v9-pmacct.pcap",
        "netflow-v9-nfreplay.pcap",
        "ipfix-softflowd.pcap",
        "ipfix-pmacct.pcap",
        "ipfix-biflow-softflowd.pcap"
    };

    /**
     * @param flows the pool, at least one flow
     * @param source where the pool came from, for the report
     */
    record Pool(List<FlowRecord> flows, String source) {}

    private FanoutFlows() {}

    static Pool load() throws IOException, DecodeException {
        Path testdata = BenchCaptures.dir();
        if (testdata != null) {
            List<FlowRecord> flows = new ArrayList<>();
            int files = 0;
            for (String name : CAPTURES) {
                Path f = testdata.resolve(name);
                if (Files.isRegularFile(f)) {
                    flows.addAll(capture(f));
                    files++;
                }
            }
            if (!flows.isEmpty()) {
                return new Pool(
                        List.copyOf(flows),
                        flows.size() + " flows decoded from " + files + " shared captures");
            }
        }
        return generated();
    }

    private static List<FlowRecord> capture(Path file) throws IOException, DecodeException {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        UdpDatagramExtractor x = new UdpDatagramExtractor();
        List<FlowRecord> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(file)) {
            while (r.next()) {
                UdpDatagram d = x.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (d == null) {
                    continue;
                }
                DecodeContext ctx =
                        new DecodeContext(
                                new ExporterKey(d.src(), d.srcPort()),
                                d.timestampNanos() / 1_000_000L);
                out.addAll(decoder.decode(d.payload(), ctx, cache).records());
            }
        }
        return out;
    }

    private static Pool generated() throws DecodeException {
        long t0 = 1_700_000_000_000L;
        FlowGenerator gen = new FlowGenerator(TrafficProfile.defaults(), 1);
        List<SimulatedExporter> ex = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ex.add(new SimulatedExporter(i, ExportProtocol.IPFIX, gen, 1, t0));
        }
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        List<FlowRecord> out = new ArrayList<>();
        for (int n = 0; n < 2_000; n++) {
            SimulatedExporter e = ex.get(n % ex.size());
            ExportDatagram d = e.next(t0 + n);
            DecodeContext ctx =
                    new DecodeContext(
                            new ExporterKey(IpAddress.parse("127.0.0.1"), 40_000 + e.index()),
                            t0 + n);
            out.addAll(decoder.decode(ByteBuffer.wrap(d.toByteArray()), ctx, cache).records());
        }
        return new Pool(List.copyOf(out), out.size() + " flows from loadgen IPFIX (seed 1)");
    }
}
