// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.bench;

import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The String columns of one enriched {@code flows} row (29 of them, as the 18.16 schema has: mostly
 * empty, a few short ASCII names, one non-ASCII description), written by {@link
 * RowBinaryOutput#string} against the UTF-8 encoder per value it replaced. One operation writes one
 * row's strings.
 *
 * <pre>
 * mvn -B -ntp -o -q -pl sinks test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.cp
 * java -cp sinks/target/test-classes:sinks/target/classes:$(cat sinks/target/bench.cp) \
 *     org.openjdk.jmh.Main RowBinaryStringBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RowBinaryStringBenchmark {

    private String[] row;
    private RowBinaryOutput out;

    @Setup
    public void setUp() {
        row = new String[29];
        java.util.Arrays.fill(row, "");
        row[0] = "edge1.fra";
        row[1] = "edge";
        row[2] = "fra1";
        row[5] = "xe-0/0/1";
        row[6] = "transit: Level3 \u2192 AS3356";
        row[7] = "external";
        row[10] = "ae1.100";
        row[12] = "internal";
        row[15] = "DE";
        row[16] = "US";
        out = new RowBinaryOutput(1 << 20);
    }

    @Benchmark
    public int string() {
        if (out.size() > (1 << 19)) {
            out.reset();
        }
        for (String s : row) {
            out.string(s);
        }
        return out.size();
    }

    @Benchmark
    public int utf8EncoderPerValue() {
        if (out.size() > (1 << 19)) {
            out.reset();
        }
        for (String s : row) {
            out.bytes(s.getBytes(StandardCharsets.UTF_8));
        }
        return out.size();
    }
}
