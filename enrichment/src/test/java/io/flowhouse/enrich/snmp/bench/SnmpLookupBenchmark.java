// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp.bench;

import io.flowhouse.enrich.InterfaceInfo;
import io.flowhouse.enrich.snmp.SnmpCredential;
import io.flowhouse.enrich.snmp.SnmpCredentials;
import io.flowhouse.enrich.snmp.SnmpInterfaceDirectory;
import io.flowhouse.enrich.snmp.SnmpOptions;
import io.flowhouse.enrich.snmp.Snmpd;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the SNMP directory costs on the flow path, one thread: a warm lookup of an interface, of an
 * exporter's name, and an observation of a known exporter. The directory is filled by real polls:
 * {@code exporters} exporter addresses, each pointed (agent override) at one real {@code snmpd} on
 * loopback that serves this machine's interface table. Run: see enrichment/BENCHMARKS-snmp.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Thread)
public class SnmpLookupBenchmark {

    @Param({"1000"})
    public int exporters;

    private Path dir;
    private Snmpd snmpd;
    private SnmpInterfaceDirectory directory;
    private InetAddress[] addresses;
    private long[] ifIndexes;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("flowhouse-snmp-bench");
        snmpd = Snmpd.start(dir);
        addresses = new InetAddress[exporters];
        SnmpOptions.Builder b =
                SnmpOptions.builder(
                                new SnmpCredentials(
                                        List.of(SnmpCredential.v2c("10.0.0.0/8", Snmpd.COMMUNITY))))
                        .maxInFlight(16);
        for (int i = 0; i < exporters; i++) {
            addresses[i] =
                    InetAddress.getByAddress(
                            new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
            b.agent(
                    addresses[i],
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), snmpd.port));
        }
        directory = SnmpInterfaceDirectory.start(b.build());
        for (InetAddress a : addresses) {
            directory.observe(a);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (directory.counters().pollsOk() < exporters) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not all polled: " + directory.counters());
            }
            Thread.sleep(50);
        }
        ifIndexes =
                directory.interfaces(addresses[0]).keySet().stream()
                        .mapToLong(Long::longValue)
                        .toArray();
        System.out.println(
                "\nfilled: "
                        + exporters
                        + " exporters x "
                        + ifIndexes.length
                        + " interfaces; "
                        + directory.counters());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        directory.close();
        snmpd.close();
    }

    @Benchmark
    public Optional<InterfaceInfo> lookupInterface() {
        int i = next++;
        return directory.lookupInterface(
                addresses[i % addresses.length], ifIndexes[i % ifIndexes.length]);
    }

    @Benchmark
    public Optional<String> exporterName() {
        return directory.exporterName(addresses[next++ % addresses.length]);
    }

    @Benchmark
    public void observeKnown() {
        directory.observe(addresses[next++ % addresses.length]);
    }

    @Benchmark
    public Optional<InterfaceInfo> lookupUnknownExporter() {
        // Not held: one hash miss.
        return directory.lookupInterface(unknown, 1);
    }

    private final InetAddress unknown = InetAddress.getLoopbackAddress();
}
