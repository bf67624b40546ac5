// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.bench;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.CompositeDirectory;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.LearnedInterfaces;
import io.flowhouse.enrich.WatchedFile;
import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.rules.StaticRules;
import io.flowhouse.enrich.rules.StaticRulesParser;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of enriching one flow with every source on and warm caches, one thread: the real open
 * country and ASN databases (enrichment/scripts/fetch-geo-data.sh, {@code -Dgeo.dir}), a rules file
 * of 64 exporters with interface rules (regular expressions) and 256 networks, and options-data
 * interface names. The flows cycle over 4,096 prepared ones (public IPv4 and IPv6 addresses,
 * exporters inside the rules). Run: see enrichment/BENCHMARKS.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Thread)
public class EnrichBenchmark {

    private static final int FLOWS = 4096;

    /**
     * exporter-first: the exporter's AS kept when set (half the flows); database: always looked up.
     */
    @Param({"exporter-first", "database"})
    public String asnOrder;

    private Enricher enricher;
    private IpAddress[] exporter;
    private IpAddress[] src;
    private IpAddress[] dst;
    private long[] inIf;
    private long[] srcAs;
    private int i;

    @Setup
    public void setup() throws Exception {
        Path geo =
                Path.of(
                        System.getProperty(
                                "geo.dir",
                                System.getProperty("user.home") + "/.cache/flowhouse/geo"));
        StringBuilder rules = new StringBuilder("exporters:\n");
        for (int e = 0; e < 64; e++) {
            rules.append("  - prefix: 192.0.2.")
                    .append(e)
                    .append("/32\n    name: edge")
                    .append(e)
                    .append("\n    site: par1\n    interfaces:\n")
                    .append("      - description-match: '^(transit|ix|pni)[: -]+(\\S+)'\n")
                    .append("        boundary: external\n        connectivity: $1\n")
                    .append("        provider: $2\n")
                    .append("      - description-match: '^core'\n        boundary: internal\n");
        }
        rules.append("networks:\n");
        for (int n = 0; n < 256; n++) {
            rules.append("  - prefix: ").append(n).append(".0.0.0/8\n    name: net").append(n);
            rules.append("\n    role: r\n");
        }
        Path file = Files.createTempFile("rules", ".yaml");
        Files.writeString(file, rules);
        WatchedFile<StaticRules> r =
                WatchedFile.open("rules", file, Duration.ofSeconds(30), StaticRulesParser::read);
        LearnedInterfaces options = new LearnedInterfaces(1024, 1024);
        Random random = new Random(1);
        exporter = new IpAddress[FLOWS];
        src = new IpAddress[FLOWS];
        dst = new IpAddress[FLOWS];
        inIf = new long[FLOWS];
        srcAs = new long[FLOWS];
        String[] descriptions = {"transit: Cogent", "ix DE-CIX", "core-par2", "customer 12"};
        for (int e = 0; e < 64; e++) {
            for (int k = 0; k < 16; k++) {
                options.learn(
                        InetAddress.getByName("192.0.2." + e),
                        k,
                        "et-0/0/" + k,
                        descriptions[k % 4]);
            }
        }
        for (int f = 0; f < FLOWS; f++) {
            // As the job's stage gets them: the decoder's addresses, never InetAddress.
            exporter[f] = IpAddress.parse("192.0.2." + random.nextInt(64));
            src[f] = publicAddress(random, f % 4 == 3);
            dst[f] = publicAddress(random, f % 4 == 3);
            inIf[f] = random.nextInt(16);
            srcAs[f] = f % 2 == 0 ? 0 : 64512;
        }
        GeoLookup g =
                new GeoLookup(
                        MmdbFile.open(geo.resolve("country.mmdb"), Duration.ofSeconds(30)),
                        MmdbFile.open(geo.resolve("asn.mmdb"), Duration.ofSeconds(30)),
                        AsnOrder.of(asnOrder));
        if (!g.countryDb().loaded() || !g.asnDb().loaded()) {
            throw new IllegalStateException("no geo data in " + geo + ": run fetch-geo-data.sh");
        }
        enricher = new Enricher(new CompositeDirectory(List.of(options)), r, g);
    }

    private static IpAddress publicAddress(Random random, boolean v6) throws Exception {
        byte[] b = new byte[v6 ? 16 : 4];
        random.nextBytes(b);
        if (v6) {
            b[0] = 0x2a; // 2a00::/8, RIPE's: mostly allocated
        } else {
            b[0] = (byte) (1 + random.nextInt(223)); // unicast, mostly public
        }
        return IpAddress.ofBytes(b);
    }

    @Benchmark
    public FlowContext enrichOneFlow() {
        int f = i++ & (FLOWS - 1);
        return enricher.enrich(
                exporter[f], inIf[f], inIf[f] ^ 1, src[f], dst[f], srcAs[f], 0, System.nanoTime());
    }
}
