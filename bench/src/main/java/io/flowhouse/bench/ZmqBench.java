// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.zmq.ZmqPublisher;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@code bench zmq}: the ntopng ZMQ bridge ({@link ZmqPublisher}, as the Flink sink runs it) bound
 * on loopback, with a JeroMQ SUB subscriber (the ntopng stand-in) on its own thread and ZMQ context
 * that checks every message header (topic, {@code msg_id} strictly +1 per source).
 *
 * <ol>
 *   <li><b>Throughput</b>, three rounds: {@code overflow=block}, flows published as fast as the
 *       caller can; rate = flows / time until the subscriber got the last flow message; CPU per
 *       flow of every thread involved (caller, publisher socket thread, JeroMQ I/O threads of both
 *       sides, subscriber), from the JVM's thread CPU clocks. On a shared machine the CPU per flow
 *       is the stable figure; the wall-clock rate follows how much CPU the threads got.
 *   <li><b>Drop-free search</b> with the production default {@code overflow=drop}: offered rate
 *       stepped up; clean when the publisher dropped nothing, sent every flow offered, and the
 *       subscriber received every flow message it sent with no {@code msg_id} gap.
 *   <li><b>Slow subscriber</b>: the subscriber sleeps per message; the bounded queue must drop and
 *       count, with sent + dropped = offered and every sent message received.
 * </ol>
 */
final class ZmqBench {

    static final String DEFAULT_RATES = "250000,500000,1000000,1500000,2000000,3000000";

    private static final int MAX_MESSAGE_BYTES = 65_536;
    private static final int QUEUE = 65_536;
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final List<FlowRecord> pool;
    private final PrintStream out;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private int cursor;
    private long offerCpuNanos;

    ZmqBench(List<FlowRecord> pool, PrintStream out) {
        this.pool = pool;
        this.out = out;
    }

    static int run(BenchOptions cl, Path results, String runId, PrintStream out) throws Exception {
        long deadline = System.nanoTime() + cl.timeLimitSeconds() * 1_000_000_000L;
        List<Double> rates = cl.rates(DEFAULT_RATES);
        int stepSeconds = cl.stepSeconds(5);
        long flows = cl.flows(3_000_000, 10_000, 100_000_000);
        FanoutFlows.Pool pool = FanoutFlows.load();
        out.println("bench zmq: input " + pool.source());
        ZmqBench bench = new ZmqBench(pool.flows(), out);

        // JIT warm-up, not reported.
        bench.throughput(Math.min(flows, 1_000_000), deadline);
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < 3 && System.nanoTime() < deadline; i++) {
            Round r = bench.throughput(flows, deadline);
            rounds.add(r);
            out.println("bench zmq: throughput round " + (i + 1) + ": " + r.describe());
        }
        SystemResult search = bench.search(rates, stepSeconds, deadline);
        String slow =
                System.nanoTime() + (stepSeconds + 40L) * 1_000_000_000L > deadline
                        ? "not run: time bound"
                        : bench.slowSubscriber(stepSeconds).describe(stepSeconds);
        out.println("bench zmq: slow subscriber: " + slow);

        BenchReport.print(out, "zmq", List.of(search));
        // A round whose subscriber missed messages has no rate: it is reported, not counted.
        double[] rs =
                rounds.stream().filter(Round::complete).mapToDouble(Round::rate).sorted().toArray();
        double[] cs =
                rounds.stream()
                        .filter(Round::complete)
                        .mapToDouble(r -> r.publishingSide() / (double) r.flows())
                        .sorted()
                        .toArray();
        if (rs.length > 0) {
            out.printf(
                    Locale.ROOT,
                    "bench zmq: throughput (overflow=block), median of %d rounds: %,.0f flows/s;"
                            + " CPU per flow on the publishing side %.0f ns (%,.0f flows/s per"
                            + " core)%n",
                    rs.length,
                    rs[rs.length / 2],
                    cs[cs.length / 2],
                    1e9 / cs[cs.length / 2]);
        }
        StringBuilder roundsJson = new StringBuilder("[");
        for (Round r : rounds) {
            roundsJson.append(roundsJson.length() == 1 ? "" : ", ").append(r.json());
        }
        roundsJson.append(']');
        String settings =
                String.format(
                        Locale.ROOT,
                        "{\"input\": %s, \"step_seconds\": %d, \"rates\": %s,"
                                + " \"max_message_bytes\": %d, \"queue_capacity\": %d,"
                                + " \"throughput_rounds\": %s, \"slow_subscriber\": %s}",
                        BenchReport.quote(pool.source()),
                        stepSeconds,
                        rates,
                        MAX_MESSAGE_BYTES,
                        QUEUE,
                        roundsJson,
                        BenchReport.quote(slow));
        Path json = BenchReport.write(results, "zmq", runId, settings, List.of(search));
        out.println("bench: results in " + json + " (+ .csv, .png)");
        return search.steps().isEmpty() || rs.length < rounds.size() || rounds.isEmpty() ? 1 : 0;
    }

    /** The ntopng stand-in: counts flow messages and checks msg_id continuity. */
    private static final class Subscriber implements AutoCloseable {
        final AtomicLong flowMessages = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong gaps = new AtomicLong();
        final AtomicLong lastFlowNanos = new AtomicLong();
        private final ZContext ctx = new ZContext(1);
        private final Thread thread;
        private volatile boolean stop;

        Subscriber(int port, long delayNanosPerMessage) throws InterruptedException {
            ZMQ.Socket s = ctx.createSocket(SocketType.SUB);
            s.setReceiveTimeOut(100);
            // JeroMQ 0.6.0 can lose a just-connected channel; a short handshake interval drops
            // and re-dials such a connection instead of leaving it silent (as ZmqTestSubscriber).
            s.setHandshakeIvl(1_000);
            s.subscribe(new byte[0]);
            s.connect("tcp://127.0.0.1:" + port);
            this.thread =
                    new Thread(
                            () -> {
                                long lastId = -1;
                                while (!stop) {
                                    byte[] h = s.recv();
                                    if (h == null) {
                                        continue;
                                    }
                                    byte[] p = s.recv();
                                    long id =
                                            ((h[28] & 0xffL) << 24)
                                                    | ((h[29] & 0xff) << 16)
                                                    | ((h[30] & 0xff) << 8)
                                                    | (h[31] & 0xff);
                                    if (lastId >= 0 && id != ((lastId + 1) & 0xffff_ffffL)) {
                                        gaps.incrementAndGet();
                                    }
                                    lastId = id;
                                    if (h[0] == 'f' && h[1] == 'l' && h[2] == 'o' && h[3] == 'w') {
                                        flowMessages.incrementAndGet();
                                        bytes.addAndGet(h.length + p.length);
                                        lastFlowNanos.set(System.nanoTime());
                                        if (delayNanosPerMessage > 0) {
                                            LockSupport.parkNanos(delayNanosPerMessage);
                                        }
                                    }
                                }
                            },
                            "bench-zmq-subscriber");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits until {@code messages} flow messages arrived (bounded). */
        boolean await(long messages) {
            long deadline = System.nanoTime() + DRAIN_NANOS;
            while (flowMessages.get() < messages && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(5_000_000);
            }
            return flowMessages.get() >= messages;
        }

        @Override
        public void close() {
            stop = true;
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ctx.close();
        }
    }

    private ZmqSinkOptions options(ZmqSinkOptions.Overflow overflow) {
        return ZmqSinkOptions.builder("tcp://127.0.0.1:0")
                // One subscriber, measured lossless: the socket waits for it (XPUB_NODROP), so
                // what it cannot take shows as counted queue drops, not as msg_id gaps. The
                // sink's default (drop) lets a slow subscriber lose its own messages instead.
                .slowSubscriber(ZmqSinkOptions.SlowSubscriber.WAIT)
                .overflow(overflow)
                .queueCapacity(QUEUE)
                .maxMessageBytes(MAX_MESSAGE_BYTES)
                .awaitSubscriber(Duration.ofSeconds(10))
                .build();
    }

    /**
     * Which side each thread belongs to, by when it appeared: JeroMQ names the I/O threads of every
     * context alike, so threads new after the publisher's constructor are its own, threads new
     * after the subscriber's are the subscriber's.
     */
    private final Map<Long, String> groups = new LinkedHashMap<>();

    private void claimNewThreads(String group) {
        for (long id : threads.getAllThreadIds()) {
            groups.putIfAbsent(id, group);
        }
    }

    /** CPU nanoseconds per thread group, from the JVM's thread clocks. */
    private Map<String, Long> cpuByGroup() {
        Map<String, Long> m = new LinkedHashMap<>();
        long self = Thread.currentThread().getId();
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] == null) {
                continue;
            }
            long cpu = threads.getThreadCpuTime(ids[i]);
            if (cpu < 0) {
                continue;
            }
            String side = groups.getOrDefault(ids[i], "other");
            String group =
                    ids[i] == self
                            ? "caller"
                            : infos[i].getThreadName().startsWith("flowhouse-zmq")
                                    ? "publisher"
                                    : side;
            m.merge(group, cpu, Long::sum);
        }
        return m;
    }

    /** Opens a publisher and its subscriber, recording whose threads are whose. */
    private ZmqPublisher publisher(ZmqSinkOptions.Overflow overflow) throws java.io.IOException {
        claimNewThreads("other");
        ZmqPublisher pub = new ZmqPublisher(options(overflow), 1);
        claimNewThreads("publisher-zmq-io");
        return pub;
    }

    /**
     * Opens the subscriber and waits until the publisher has its subscription, so that no round
     * starts against a connection that is not there yet.
     */
    private Subscriber subscriber(ZmqPublisher pub, long delayNanos) throws Exception {
        Subscriber sub = new Subscriber(pub.boundPort(), delayNanos);
        claimNewThreads("subscriber");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pub.metrics().subscriptions() <= 0) {
            if (System.nanoTime() - deadline > 0) {
                sub.close();
                throw new java.io.IOException("the subscriber did not subscribe within 20 s");
            }
            LockSupport.parkNanos(10_000_000);
        }
        return sub;
    }

    private static Map<String, Long> minus(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> m = new LinkedHashMap<>();
        a.forEach((k, v) -> m.put(k, v - b.getOrDefault(k, 0L)));
        return m;
    }

    /**
     * One throughput round.
     *
     * @param flows flows published
     * @param rate flows per second until the subscriber had the last flow message
     * @param cpuNanos CPU per thread group over the round
     * @param processCpuNanos CPU of the whole JVM (GC and JIT included)
     * @param complete whether the subscriber got every flow message without a gap
     */
    record Round(
            long flows,
            double rate,
            long messages,
            Map<String, Long> cpuNanos,
            long processCpuNanos,
            boolean complete) {

        String describe() {
            StringBuilder sb =
                    new StringBuilder(
                            String.format(
                                    Locale.ROOT,
                                    "%,d flows in %,d messages: %,.0f flows/s, %s; CPU per flow:",
                                    flows,
                                    messages,
                                    rate,
                                    complete ? "every message received" : "MESSAGES MISSING"));
            cpuNanos.forEach(
                    (k, v) ->
                            sb.append(
                                    String.format(
                                            Locale.ROOT, " %s %.0f ns", k, v / (double) flows)));
            sb.append(
                    String.format(
                            Locale.ROOT,
                            "; publishing side (caller + publisher + its ZMQ I/O) %.0f ns, whole JVM"
                                    + " %.0f ns",
                            publishingSide() / (double) flows,
                            processCpuNanos / (double) flows));
            return sb.toString();
        }

        /** What the Flink sink pays: the caller's queueing, encoding, and ZMQ's I/O thread. */
        long publishingSide() {
            return cpuNanos.getOrDefault("caller", 0L)
                    + cpuNanos.getOrDefault("publisher", 0L)
                    + cpuNanos.getOrDefault("publisher-zmq-io", 0L);
        }

        String json() {
            StringBuilder sb =
                    new StringBuilder(
                            String.format(
                                    Locale.ROOT,
                                    "{\"flows\": %d, \"messages\": %d, \"flows_per_s\": %.0f,"
                                            + " \"complete\": %s, \"cpu_ns_per_flow\": {",
                                    flows,
                                    messages,
                                    rate,
                                    complete));
            int n = 0;
            for (Map.Entry<String, Long> e : cpuNanos.entrySet()) {
                sb.append(n++ == 0 ? "" : ", ")
                        .append(BenchReport.quote(e.getKey()))
                        .append(": ")
                        .append(String.format(Locale.ROOT, "%.1f", e.getValue() / (double) flows));
            }
            return sb.append(
                            String.format(
                                    Locale.ROOT,
                                    ", \"publishing_side\": %.1f, \"whole_jvm\": %.1f}}",
                                    publishingSide() / (double) flows,
                                    processCpuNanos / (double) flows))
                    .toString();
        }
    }

    private static long processCpuNanos() {
        long ticks = ProcStats.cpuTicks(ProcessHandle.current().pid());
        return ticks * (1_000_000_000L / ProcStats.TICKS_PER_SECOND);
    }

    Round throughput(long flows, long deadline) throws Exception {
        try (ZmqPublisher pub = publisher(ZmqSinkOptions.Overflow.BLOCK);
                Subscriber sub = subscriber(pub, 0)) {
            Map<String, Long> cpu0 = cpuByGroup();
            long proc0 = processCpuNanos();
            long start = System.nanoTime();
            long n = 0;
            while (n < flows && System.nanoTime() - deadline < 0) {
                pub.publish(next());
                n++;
            }
            pub.flush(Duration.ofSeconds(60));
            ZmqPublisher.Metrics m = pub.metrics();
            boolean complete = sub.await(m.messagesSent()) && sub.gaps.get() == 0;
            Map<String, Long> cpu = minus(cpuByGroup(), cpu0);
            long proc = processCpuNanos() - proc0;
            double seconds = (sub.lastFlowNanos.get() - start) / 1e9;
            return new Round(
                    m.flowsSent(), m.flowsSent() / seconds, m.messagesSent(), cpu, proc, complete);
        }
    }

    private FlowRecord next() {
        FlowRecord f = pool.get(cursor);
        cursor = cursor + 1 == pool.size() ? 0 : cursor + 1;
        return f;
    }

    /**
     * Publishes at {@code rate} flows/s for {@code seconds} from this thread; returns offered. The
     * caller's CPU in {@code publish} calls, without the pacing's sleeps, goes to {@link
     * #offerCpuNanos}.
     */
    private long offer(ZmqPublisher pub, double rate, int seconds) throws Exception {
        offerCpuNanos = 0;
        long t0 = System.nanoTime();
        long end = t0 + seconds * 1_000_000_000L;
        long n = 0;
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                return n;
            }
            long due = (long) ((now - t0) / 1e9 * rate);
            if (n >= due) {
                LockSupport.parkNanos(100_000);
                continue;
            }
            long c0 = threads.getCurrentThreadCpuTime();
            for (long k = Math.min(due - n, 4096); k > 0; k--) {
                pub.publish(next());
                n++;
            }
            offerCpuNanos += threads.getCurrentThreadCpuTime() - c0;
        }
    }

    SystemResult search(List<Double> rates, int stepSeconds, long deadline) {
        String name = "zmq->SUB";
        long budget = (stepSeconds + 40L) * 1_000_000_000L;
        RateLadder.Outcome o =
                new RateLadder(rates, budget, deadline)
                        .climb(rate -> step(name, rate, stepSeconds), StepResult::clean);
        if (o.failure() != null) {
            out.printf(Locale.ROOT, "bench zmq: %s failed: %s%n", name, o.failure());
        }
        return new SystemResult(
                name,
                o.steps(),
                o.limited(),
                o.error(),
                List.of(
                        "ZmqPublisher (flowhouse sinks) bound on 127.0.0.1, overflow=drop, queue "
                                + QUEUE
                                + " flows, "
                                + MAX_MESSAGE_BYTES
                                + "-byte TLV messages; JeroMQ SUB subscriber on its own thread"
                                + " and context; delivered = flows sent when every flow message"
                                + " arrived without a msg_id gap"));
    }

    private StepResult step(String name, double rate, int seconds) throws Exception {
        try (ZmqPublisher pub = publisher(ZmqSinkOptions.Overflow.DROP);
                Subscriber sub = subscriber(pub, 0)) {
            Map<String, Long> cpu0 = cpuByGroup();
            long t0 = System.nanoTime();
            long offered = offer(pub, rate, seconds);
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            pub.flush(Duration.ofSeconds(30));
            ZmqPublisher.Metrics m = pub.metrics();
            boolean all = sub.await(m.messagesSent()) && sub.gaps.get() == 0;
            double stepSeconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Long> cpu = minus(cpuByGroup(), cpu0);
            cpu.put("caller", offerCpuNanos);
            long delivered =
                    all
                            ? m.flowsSent()
                            : m.messagesSent() == 0
                                    ? 0
                                    : m.flowsSent() * sub.flowMessages.get() / m.messagesSent();
            Map<String, Double> cpuPercent = new LinkedHashMap<>();
            cpu.forEach((k, v) -> cpuPercent.put(k, 100.0 * v / 1e9 / stepSeconds));
            Map<String, Long> drops = new LinkedHashMap<>();
            drops.put("queue_full", m.flowsDropped());
            drops.put("msg_id_gaps", sub.gaps.get());
            double achieved = offered / loadSeconds;
            StepResult s =
                    new StepResult(
                            name,
                            rate,
                            achieved,
                            achieved >= rate * 0.98,
                            offered,
                            m.messagesSent(),
                            "flows",
                            offered,
                            delivered,
                            0,
                            drops,
                            cpuPercent,
                            Map.of(),
                            stepSeconds);
            long total = cpu.values().stream().mapToLong(Long::longValue).sum();
            long side =
                    cpu.getOrDefault("caller", 0L)
                            + cpu.getOrDefault("publisher", 0L)
                            + cpu.getOrDefault("publisher-zmq-io", 0L);
            out.printf(
                    Locale.ROOT,
                    "bench: %-16s offered %,10.0f flows/s  sent %,10.0f/s  flows %,d of %,d in"
                            + " %,d messages (%,d received)  dropped %,d  gaps %,d  CPU per flow:"
                            + " publishing side %.0f ns, all threads %.0f ns  %s%n",
                    name,
                    rate,
                    achieved,
                    delivered,
                    offered,
                    m.messagesSent(),
                    sub.flowMessages.get(),
                    m.flowsDropped(),
                    sub.gaps.get(),
                    side / (double) Math.max(1, offered),
                    total / (double) Math.max(1, offered),
                    s.clean() ? "clean" : "LOSS");
            return s;
        }
    }

    /**
     * The slow-subscriber check.
     *
     * @param offered flows given to {@code publish}
     * @param sent flows handed to the socket
     * @param dropped flows dropped because the queue was full (counted)
     * @param messagesSent flow messages sent
     * @param received flow messages the subscriber got
     * @param gaps msg_id gaps the subscriber saw
     * @param depthAtEnd queue depth when the load stopped
     */
    record SlowResult(
            long offered,
            long sent,
            long dropped,
            long messagesSent,
            long received,
            long gaps,
            int depthAtEnd) {

        /** Every flow sent or counted as dropped, every message sent received, in order. */
        boolean accounted() {
            return sent + dropped == offered && received == messagesSent && gaps == 0;
        }

        String describe(int seconds) {
            return String.format(
                    Locale.ROOT,
                    "offered %,d flows at 1,000,000/s for %d s to a subscriber taking 2 ms per"
                            + " message: sent %,d + dropped (queue full, counted) %,d = %,d;"
                            + " messages sent %,d, received %,d, msg_id gaps %d; queue depth at the"
                            + " end of the load %,d of %,d: %s",
                    offered,
                    seconds,
                    sent,
                    dropped,
                    sent + dropped,
                    messagesSent,
                    received,
                    gaps,
                    depthAtEnd,
                    QUEUE,
                    accounted() ? "accounted exactly" : "ACCOUNTING MISMATCH");
        }
    }

    /**
     * A subscriber that takes 2 ms per message (~190 K flows/s at ~380 flows per message) against 1
     * M flows/s offered: the queue fills, flows are dropped and counted, nothing else is lost.
     */
    SlowResult slowSubscriber(int seconds) throws Exception {
        try (ZmqPublisher pub = publisher(ZmqSinkOptions.Overflow.DROP);
                Subscriber sub = subscriber(pub, 2_000_000)) {
            long offered = offer(pub, 1_000_000, seconds);
            int depth = pub.metrics().queueDepth();
            pub.flush(Duration.ofSeconds(30));
            ZmqPublisher.Metrics m = pub.metrics();
            sub.await(m.messagesSent());
            return new SlowResult(
                    offered,
                    m.flowsSent(),
                    m.flowsDropped(),
                    m.messagesSent(),
                    sub.flowMessages.get(),
                    sub.gaps.get(),
                    depth);
        }
    }
}
