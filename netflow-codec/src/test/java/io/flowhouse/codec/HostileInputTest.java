// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static io.flowhouse.codec.Wire.repeat;
import static io.flowhouse.codec.Wire.set;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateLimits;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The worst datagrams we know, at full size (65,535 bytes): what one decode allocates and the CPU
 * it takes stay within a fixed multiple of the datagram's size, and problems are counted, not
 * listed. Allocation is the decoding thread's, from {@code ThreadMXBean#getThreadAllocatedBytes}.
 */
class HostileInputTest {

    /**
     * Bytes a decode may allocate per datagram byte when it yields no flows (problem bombs,
     * template and options floods; measured: at most 33, a flood of 1-field templates, whose
     * templates and cache entries are the output there; problem bombs 1 to 10).
     */
    static final long K_NO_FLOWS = 48;

    /**
     * Bytes a decode may allocate per datagram byte in all, as the fuzzer checks ({@code
     * FuzzMain.ALLOCATION_PER_INPUT_BYTE}): a 1-byte data record legitimately becomes a ~230-byte
     * {@code FlowRecord} (measured: 233).
     */
    static final long K_ANY = 512;

    /**
     * Heap bytes per byte of a scope's stored options data when a datagram changes it: the scope's
     * two sorted arrays are copied once, 12 bytes per entry for at least 13 stored (measured: 99 KB
     * for a full scope of 4,096 names, 53 KB stored).
     */
    static final long COPY_BYTES_PER_OPTIONS_BYTE = 2;

    /** Thread CPU a full-size hostile datagram may take (it takes about a millisecond). */
    static final long MAX_CPU_NANOS = 250_000_000L;

    static final int MAX = HostileDatagrams.MAX;

    private static final DecodeContext CTX =
            new DecodeContext(
                    new ExporterKey(IpAddress.parse("192.0.2.66"), 4739), 1_700_000_000_000L);

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What one decode of {@code datagram} cost, and what it returned. */
    record Cost(long allocated, long cpuNanos, DecodeResult result) {}

    /**
     * Decodes {@code datagram} into a fresh cache from {@code caches}, after {@code teach}
     * datagrams; first once unmeasured (class loading, string concatenation bootstrap, JIT), then
     * measured.
     */
    static Cost measure(Supplier<TemplateCache> caches, byte[] datagram, byte[]... teach)
            throws DecodeException {
        Cost last = null;
        for (int round = 0; round < 2; round++) {
            NetflowDecoder decoder = new NetflowDecoder();
            TemplateCache cache = caches.get();
            for (byte[] t : teach) {
                decoder.decode(ByteBuffer.wrap(t), CTX, cache);
            }
            ByteBuffer b = ByteBuffer.wrap(datagram);
            long tid = Thread.currentThread().getId();
            long a0 = MX.getThreadAllocatedBytes(tid);
            long c0 = MX.getThreadCpuTime(tid);
            DecodeResult r = decoder.decode(b, CTX, cache);
            long c1 = MX.getThreadCpuTime(tid);
            long a1 = MX.getThreadAllocatedBytes(tid);
            last = new Cost(a1 - a0, c1 - c0, r);
        }
        return last;
    }

    private static void assertBounded(Cost c, byte[] datagram, long k) {
        System.out.printf(
                "%,d bytes in: %,d allocated (%.1f per byte), %.2f ms cpu, %d records, problems"
                        + " %s%n",
                datagram.length,
                c.allocated(),
                (double) c.allocated() / datagram.length,
                c.cpuNanos() / 1e6,
                c.result().records().size(),
                c.result().problemCounts());
        assertThat(c.allocated()).as("bytes allocated").isLessThanOrEqualTo(k * datagram.length);
        assertThat(c.cpuNanos()).as("cpu ns").isLessThanOrEqualTo(MAX_CPU_NANOS);
        assertThat(c.result().problems().size())
                .isLessThanOrEqualTo(DecodeResult.MAX_PROBLEM_DETAILS);
        assertThat(c.result().missingTemplateIds().size())
                .isLessThanOrEqualTo(DecodeResult.MAX_MISSING_TEMPLATE_IDS);
    }

    /** A cache that takes a template as large as a datagram allows, so its data sets decode. */
    private static InMemoryTemplateCache lenient() {
        return new InMemoryTemplateCache(new TemplateLimits(4096, 0xffff, 1 << 20));
    }

    @Test
    void oddFieldTimesEmptySetBombIsCountedOncePerTemplate() throws Exception {
        byte[] bomb = HostileDatagrams.ipfixOddFieldBomb(8000, MAX);
        assertThat(bomb.length).isGreaterThan(MAX - 4);
        Cost c = measure(HostileInputTest::lenient, bomb);
        assertBounded(c, bomb, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.ODD_FIELD_LENGTH)).isEqualTo(1);
        assertThat(c.result().problems().get(0).message()).contains("and 7996 more fields");

        // The same with the default limits: the template is refused, its sets are missing.
        Cost d = measure(InMemoryTemplateCache::new, bomb);
        assertBounded(d, bomb, K_NO_FLOWS);
        assertThat(d.result().problemCount(DecodeProblem.Kind.TEMPLATE_TOO_LARGE)).isEqualTo(1);
        assertThat(d.result().problemCount(DecodeProblem.Kind.TEMPLATE_MISSING))
                .isEqualTo((bomb.length - 16 - 4 - 4 - 4 * 8000) / 4);
        assertThat(d.result().missingTemplateIds()).containsExactly(256);
    }

    @Test
    void emptySetsOfACachedOddTemplate() throws Exception {
        byte[] teach = HostileDatagrams.ipfixOddFieldBomb(8000, 16 + 8 + 4 * 8000);
        byte[] sets = Wire.ipfix(1, 1, repeat(set(256, new byte[0]), (MAX - 16) / 4));
        Cost c = measure(HostileInputTest::lenient, sets, teach);
        assertBounded(c, sets, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.ODD_FIELD_LENGTH)).isEqualTo(1);
    }

    @Test
    void v9OddFieldTimesEmptyFlowSetBomb() throws Exception {
        byte[] bomb = HostileDatagrams.v9OddFieldBomb(8000, MAX);
        Cost c = measure(HostileInputTest::lenient, bomb);
        assertBounded(c, bomb, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.ODD_FIELD_LENGTH)).isEqualTo(1);
    }

    @Test
    void setsOfThousandsOfMissingTemplates() throws Exception {
        byte[] m = HostileDatagrams.missingTemplates();
        Cost c = measure(InMemoryTemplateCache::new, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.TEMPLATE_MISSING))
                .isEqualTo((m.length - 16) / 4);
        assertThat(c.result().missingTemplateIds())
                .hasSize(DecodeResult.MAX_MISSING_TEMPLATE_IDS)
                .startsWith(256, 257, 258);
    }

    @Test
    void reservedSetIds() throws Exception {
        byte[] m = Wire.ipfix(1, 0, repeat(set(5, new byte[0]), (MAX - 16) / 4));
        Cost c = measure(InMemoryTemplateCache::new, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.RESERVED_SET_ID))
                .isEqualTo((MAX - 16) / 4);
        assertThat(c.result().problems()).hasSize(1);
    }

    @Test
    void withdrawalFloods() throws Exception {
        byte[] m = HostileDatagrams.unknownWithdrawals();
        Cost c = measure(InMemoryTemplateCache::new, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.TEMPLATE_WITHDRAWAL_UNKNOWN))
                .isEqualTo((m.length - 16 - 4) / 4);

        byte[] all = HostileDatagrams.withdrawAllFlood();
        byte[] teach = Wire.ipfix(1, 0, set(2, Wire.template(256, 8, 4)));
        Cost d = measure(InMemoryTemplateCache::new, all, teach);
        assertBounded(d, all, K_NO_FLOWS);
        assertThat(d.result().withdrawn()).hasSize(1);
    }

    @Test
    void templateFlood() throws Exception {
        byte[] m = HostileDatagrams.templateFlood();
        Cost c = measure(InMemoryTemplateCache::new, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(c.result().learned()).hasSize(TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER);
        assertThat(c.result().problemCount(DecodeProblem.Kind.TEMPLATE_FLOOD))
                .isEqualTo(
                        (m.length - 16 - 4) / 8
                                - TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER);
    }

    @Test
    void hugeOptionStringsAreCut() throws Exception {
        byte[] m = HostileDatagrams.hugeOptionString();
        assertThat(m).hasSize(MAX);
        Cost c = measure(InMemoryTemplateCache::new, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(c.result().problemCount(DecodeProblem.Kind.OPTION_TRUNCATED)).isEqualTo(1);

        // Many long names: each is cut to the limit.
        byte[] n = HostileDatagrams.manyLongOptionStrings();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        Cost d = measure(() -> cache, n);
        assertBounded(d, n, K_NO_FLOWS);
        assertThat(d.result().problemCount(DecodeProblem.Kind.OPTION_TRUNCATED))
                .isEqualTo(d.result().optionsRecords());
        assertThat(
                        cache.options(d.result().scope()).interfaceNames().values().stream()
                                .mapToInt(String::length)
                                .max())
                .hasValue(OptionsLimits.DEFAULT_MAX_STRING_BYTES);
    }

    @Test
    void optionsFloodStopsAtTheScopeLimits() throws Exception {
        byte[] m = HostileDatagrams.optionsFlood();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        Cost c = measure(() -> cache, m);
        assertBounded(c, m, K_NO_FLOWS);
        assertThat(cache.options(c.result().scope()).interfaceNames())
                .hasSize(OptionsLimits.DEFAULT_MAX_ENTRIES_PER_SCOPE);
        assertThat(c.result().problemCount(DecodeProblem.Kind.OPTIONS_LIMIT))
                .isEqualTo(
                        c.result().optionsRecords() - OptionsLimits.DEFAULT_MAX_ENTRIES_PER_SCOPE);
    }

    /**
     * A datagram that changes a scope's options data costs one copy of that scope's options, on top
     * of its own bytes: the scope's options are one immutable value (what state and the archive
     * store), bounded by {@link OptionsLimits}.
     */
    @Test
    void changingAFullScopeCostsOneCopyOfIt() throws Exception {
        byte[] fill = HostileDatagrams.optionsFlood();
        byte[] change = Wire.ipfix(1, 2, set(300, HostileDatagrams.nameRecord(5, 3)));
        Cost c = measure(InMemoryTemplateCache::new, change, fill);
        long copy = COPY_BYTES_PER_OPTIONS_BYTE * OptionsLimits.DEFAULT_MAX_BYTES_PER_SCOPE;
        System.out.printf(
                "%,d bytes changing a full scope: %,d allocated (bound %,d)%n",
                change.length, c.allocated(), K_ANY * change.length + copy);
        assertThat(c.allocated()).isLessThanOrEqualTo(K_ANY * change.length + copy);
    }

    @Test
    void oneByteRecordsAreTheMostOutput() throws Exception {
        byte[] teach = Wire.ipfix(1, 0, set(2, Wire.template(256, 4, 1)));
        byte[] m = Wire.ipfix(1, 1, set(256, new byte[MAX - 16 - 4]));
        Cost c = measure(InMemoryTemplateCache::new, m, teach);
        assertBounded(c, m, K_ANY);
        assertThat(c.result().records()).hasSize(MAX - 16 - 4);
    }
}
