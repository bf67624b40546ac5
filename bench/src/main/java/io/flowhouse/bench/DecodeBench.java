// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
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
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench decode}: single-thread throughput of the codec's {@link NetflowDecoder} on loadgen
 * datagrams (v5, v9, IPFIX; 8 exporters, templates refreshed every 20 datagrams) and on the shared
 * real captures when present. A timed loop: 3 s of warm-up, then 5 one-second rounds; the median
 * round is reported. Each datagram decodes into a warm template cache, as on a live collector.
 */
final class DecodeBench {

    private record Corpus(String name, List<ByteBuffer> datagrams, List<ExporterKey> from) {}

    /** One measured corpus. */
    record Row(
            String corpus,
            int datagrams,
            double datagramsPerSecond,
            double recordsPerSecond,
            double nanosPerRecord) {}

    private static final String[] CAPTURES = {
        "netflow-v5-softflowd.pcap",
        "netflow-v9-pmacct.pcap",
        "netflow-v9-softflowd.pcap",
        "ipfix-pmacct.pcap",
        "ipfix-softflowd.pcap",
        "ipfix-biflow-softflowd.pcap"
    };

    private DecodeBench() {}

    static int run(Path results, String runId, PrintStream out, PrintStream err) throws Exception {
        List<Corpus> corpora = new ArrayList<>();
        for (ExportProtocol p : ExportProtocol.values()) {
            corpora.add(generated(p));
        }
        Path testdata = BenchCaptures.dir();
        if (testdata != null) {
            for (String name : CAPTURES) {
                Path f = testdata.resolve(name);
                if (Files.isRegularFile(f)) {
                    corpora.add(capture(f));
                }
            }
        } else {
            out.println("bench decode: testdata/ not found; generated datagrams only");
        }
        List<Row> rows = new ArrayList<>();
        for (Corpus c : corpora) {
            Row r = measure(c);
            rows.add(r);
            out.printf(
                    Locale.ROOT,
                    "bench decode: %-28s %,12.0f datagrams/s %,14.0f records/s %8.0f ns/record%n",
                    r.corpus(),
                    r.datagramsPerSecond(),
                    r.recordsPerSecond(),
                    r.nanosPerRecord());
        }
        Files.createDirectories(results);
        StringBuilder csv =
                new StringBuilder("corpus,datagrams,datagrams_per_s,records_per_s,ns_per_record\n");
        StringBuilder json =
                new StringBuilder("{\n  \"stage\": \"decode\",\n  \"run\": \"" + runId + "\",\n");
        json.append(
                "  \"method\": \"single thread, 3 s warm-up, median of 5 x 1 s rounds\",\n  \"rows\": [");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            csv.append(
                    String.format(
                            Locale.ROOT,
                            "%s,%d,%.0f,%.0f,%.1f%n",
                            r.corpus(),
                            r.datagrams(),
                            r.datagramsPerSecond(),
                            r.recordsPerSecond(),
                            r.nanosPerRecord()));
            json.append(i == 0 ? "\n" : ",\n")
                    .append(
                            String.format(
                                    Locale.ROOT,
                                    "    {\"corpus\": \"%s\", \"datagrams\": %d, \"datagrams_per_s\":"
                                            + " %.0f, \"records_per_s\": %.0f, \"ns_per_record\": %.1f}",
                                    r.corpus(),
                                    r.datagrams(),
                                    r.datagramsPerSecond(),
                                    r.recordsPerSecond(),
                                    r.nanosPerRecord()));
        }
        json.append("\n  ]\n}\n");
        Path base = results.resolve("decode-" + runId);
        Files.writeString(Path.of(base + ".csv"), csv, StandardCharsets.UTF_8);
        Files.writeString(Path.of(base + ".json"), json, StandardCharsets.UTF_8);
        out.println("bench decode: results in " + base + ".json (+ .csv)");
        return 0;
    }

    private static Corpus generated(ExportProtocol p) {
        long t0 = 1_700_000_000_000L;
        TrafficProfile profile = TrafficProfile.defaults();
        FlowGenerator gen = new FlowGenerator(profile, 1);
        List<ByteBuffer> data = new ArrayList<>();
        List<ExporterKey> from = new ArrayList<>();
        List<SimulatedExporter> ex = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ex.add(new SimulatedExporter(i, p, gen, 1, t0));
        }
        for (int n = 0; n < 4_000; n++) {
            SimulatedExporter e = ex.get(n % 8);
            ExportDatagram d = e.next(t0 + n);
            data.add(ByteBuffer.wrap(d.toByteArray()).asReadOnlyBuffer());
            from.add(new ExporterKey(IpAddress.parse("127.0.0.1"), 40_000 + e.index()));
        }
        return new Corpus("loadgen-" + p.label(), data, from);
    }

    private static Corpus capture(Path file) throws IOException {
        List<ByteBuffer> data = new ArrayList<>();
        List<ExporterKey> from = new ArrayList<>();
        UdpDatagramExtractor x = new UdpDatagramExtractor();
        try (PcapReader r = PcapReader.open(file)) {
            while (r.next()) {
                UdpDatagram d = x.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (d == null) {
                    continue;
                }
                ByteBuffer copy = ByteBuffer.allocate(d.payload().remaining());
                copy.put(d.payload().duplicate()).flip();
                data.add(copy.asReadOnlyBuffer());
                from.add(new ExporterKey(d.src(), d.srcPort()));
            }
        }
        String name = file.getFileName().toString();
        return new Corpus(name.substring(0, name.length() - ".pcap".length()), data, from);
    }

    private static Row measure(Corpus c) throws DecodeException {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        List<DecodeContext> ctx = new ArrayList<>(c.from().size());
        for (ExporterKey k : c.from()) {
            ctx.add(new DecodeContext(k, 0));
        }
        long until = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < until) {
            pass(decoder, cache, c, ctx);
        }
        double[] dps = new double[5];
        double[] rps = new double[5];
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            long datagrams = 0;
            long records = 0;
            while (System.nanoTime() - start < 1_000_000_000L) {
                records += pass(decoder, cache, c, ctx);
                datagrams += c.datagrams().size();
            }
            double s = (System.nanoTime() - start) / 1e9;
            dps[round] = datagrams / s;
            rps[round] = records / s;
        }
        Arrays.sort(dps);
        Arrays.sort(rps);
        return new Row(
                c.name(), c.datagrams().size(), dps[2], rps[2], rps[2] > 0 ? 1e9 / rps[2] : 0);
    }

    private static long pass(
            NetflowDecoder decoder,
            InMemoryTemplateCache cache,
            Corpus c,
            List<DecodeContext> ctx) {
        long records = 0;
        for (int i = 0; i < c.datagrams().size(); i++) {
            try {
                DecodeResult r =
                        decoder.decode(c.datagrams().get(i).duplicate(), ctx.get(i), cache);
                records += r.records().size();
            } catch (DecodeException e) {
                // counted as zero records; real captures hold a few broken datagrams
            }
        }
        return records;
    }
}
