// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decode throughput on the test captures, one thread (= one core). One operation decodes every
 * datagram of the capture once (templates included, as they come in the file); the {@code records}
 * counter gives flow records per second (sFlow: flow samples, one record each). Run: see
 * netflow-codec/BENCHMARKS.md.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Thread)
public class DecodeBenchmark {

    @Param({
        "netflow-v5-softflowd.pcap",
        "netflow-v9-softflowd.pcap",
        "netflow-v9-pmacct.pcap",
        "ipfix-softflowd.pcap",
        "ipfix-pmacct.pcap",
        "ipfix-biflow-softflowd.pcap",
        "sflow-pmacct-rate1.pcap.gz",
        "sflow-ovs-rate10.pcap"
    })
    public String file;

    private ByteBuffer[] datagrams;
    private io.flowhouse.codec.DecodeContext[] contexts;
    private NetflowDecoder decoder;
    private InMemoryTemplateCache cache;

    /** Counts decoded flow records, reported by JMH as a rate. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Records {
        public long records;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
        }
    }

    @Setup
    public void load() throws IOException, DecodeException {
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
        datagrams = new ByteBuffer[ds.size()];
        contexts = new io.flowhouse.codec.DecodeContext[ds.size()];
        for (int i = 0; i < ds.size(); i++) {
            byte[] p = ds.get(i).payload();
            ByteBuffer direct = ByteBuffer.allocateDirect(p.length);
            direct.put(p).flip();
            datagrams[i] = direct.asReadOnlyBuffer();
            contexts[i] = ds.get(i).context();
        }
        decoder = new NetflowDecoder();
        cache = new InMemoryTemplateCache();
        decodeAll(); // learn templates and options once
    }

    private long decodeAll() throws DecodeException {
        long n = 0;
        for (int i = 0; i < datagrams.length; i++) {
            DecodeResult r = decoder.decode(datagrams[i], contexts[i], cache);
            n += r.records().size();
        }
        return n;
    }

    @Benchmark
    public long decodeCapture(Records counter) throws DecodeException {
        long n = decodeAll();
        counter.records += n;
        return n;
    }
}
