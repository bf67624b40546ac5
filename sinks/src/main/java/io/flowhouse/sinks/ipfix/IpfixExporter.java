// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.ipfix.IpfixDecoder;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.InterfaceContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-exports flows as IPFIX (RFC 7011) to one collector over UDP or TCP, with the codec's {@link
 * IpfixEncoder}: IPv4 and IPv6 flows in their own templates (256, 257), the sampling rate in an
 * options template ({@link #SAMPLING_OPTIONS}, 258, scope selectorId = the rate) with one options
 * record per rate and domain, per observation domain templates and sequence numbers (data records,
 * §3.1), messages up to {@link IpfixExporterOptions#maxMessageBytes()}. With a flow's context, its
 * AS numbers are the context's, and its interfaces' names and descriptions go out as nProbe sends
 * them: an options template ({@link #INTERFACE_OPTIONS}, 259, scope ingressInterface) and one
 * options record per interface and domain, ahead of the first flow that names it and again after
 * every template refresh.
 *
 * <p>Template management (§8): over UDP the templates go out in the first message of a domain and
 * again when {@link IpfixExporterOptions#templateRefreshInterval()} has passed or {@link
 * IpfixExporterOptions#templateRefreshMessages()} messages were sent since (§8.4; also on an idle
 * domain, from the timer); over TCP once per connection, and a reconnect starts a new transport
 * session (new templates, sequence numbers from 0). Withdrawals are never sent over UDP.
 *
 * <p>At most {@link IpfixExporterOptions#maxDomains()} observation domains are kept, each with its
 * own message buffer, encoder (sequence number) and announced rates; the least recently used one is
 * sent and forgotten for a new one.
 *
 * <p>Thread-safe (one lock); a timer thread sends partly filled messages after {@link
 * IpfixExporterOptions#linger()} and refreshes templates. {@link #export} sends on the caller's
 * thread (TCP waits at most the write timeout); the Flink sink puts a {@link QueuedIpfixExporter}
 * in front so the task thread never waits for the network. Owns its socket and timer: close it.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc7011#section-8.4">RFC 7011 §8.4</a>
 */
public final class IpfixExporter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IpfixExporter.class);

    private static final Template V4 = IpfixEncoder.FLOW_TEMPLATE_IPV4;
    private static final Template V6 = IpfixEncoder.FLOW_TEMPLATE_IPV6;
    private static final int V4_LENGTH = IpfixEncoder.recordLength(V4);
    private static final int V6_LENGTH = IpfixEncoder.recordLength(V6);

    /**
     * The sampling options template: scope selectorId (302), samplingPacketInterval (305) and
     * samplingPacketSpace (306), RFC 5477's systematic count-based sampling, rate = (305 + 306) /
     * 305. Deliberately without samplingInterval (34): nfcapd 1.7 reads it as the packet space when
     * 305 is present and doubles every counter of an unsampled stream.
     */
    static final Template SAMPLING_OPTIONS =
            new Template(
                    IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE_ID,
                    List.of(
                            FieldSpecifier.of(302, 8),
                            FieldSpecifier.of(305, 4),
                            FieldSpecifier.of(306, 4)),
                    1);

    /** The interface options template's id: after the flow (256, 257) and sampling (258) ones. */
    static final int INTERFACE_OPTIONS_ID = 259;

    /**
     * Interface names (RFC 5102 / IANA): scope ingressInterface (10), interfaceName (82) and
     * interfaceDescription (83), both variable length. ingressInterface as the scope is what nProbe
     * sends and what nfdump and Wireshark read as "this ifIndex is called".
     */
    static final Template INTERFACE_OPTIONS =
            new Template(
                    INTERFACE_OPTIONS_ID,
                    List.of(
                            FieldSpecifier.of(10, 4),
                            FieldSpecifier.of(82, FieldSpecifier.VARIABLE_LENGTH),
                            FieldSpecifier.of(83, FieldSpecifier.VARIABLE_LENGTH)),
                    1);

    /**
     * The most a name or description may take so that a domain's first message (header, templates,
     * a new rate's options record, two interfaces' names and one IPv6 flow) fits {@code
     * maxMessageBytes}: each of the four fields takes its length byte and its bytes.
     */
    static int fittingNameBytes(int maxMessageBytes) {
        int fixed =
                16 // message header
                        + 2 * IpfixDecoder.SET_HEADER_SIZE // template and options template sets
                        + IpfixEncoder.templateRecordLength(V4)
                        + IpfixEncoder.templateRecordLength(V6)
                        + IpfixEncoder.templateRecordLength(SAMPLING_OPTIONS)
                        + IpfixEncoder.templateRecordLength(INTERFACE_OPTIONS)
                        + 2 * IpfixDecoder.SET_HEADER_SIZE // names set, the set after it
                        + 2 * 4 // the two ifIndex scopes
                        + 4 // a length byte for each of the four strings
                        + IpfixDecoder.SET_HEADER_SIZE
                        + OPTIONS_RECORD_LENGTH
                        + V6_LENGTH;
        return Math.max(0, (maxMessageBytes - fixed) / 4);
    }

    /** selectorId u64 + packet interval + packet space (u32 each). */
    private static final int OPTIONS_RECORD_LENGTH = 16;

    /**
     * Sampling rates remembered as announced per domain; a rate forgotten past this is announced
     * again (20 bytes), so a stream of ever new rates costs bytes on the wire, never memory.
     */
    static final int REMEMBERED_RATES = 64;

    private static final Duration TICK = Duration.ofMillis(100);
    private static final Duration STARTUP_CONNECT = Duration.ofSeconds(2);

    /**
     * Counters of one exporter.
     *
     * @param flowsIn flows given to {@link #export}
     * @param recordsSent data records in messages sent (a split biflow is two)
     * @param recordsDropped records lost: collector disconnected, send failure, closed
     * @param messagesSent messages sent (template-only refreshes included)
     * @param bytesSent bytes of the messages sent
     * @param templateSends messages that carried the templates
     * @param sendErrors failed sends (ICMP unreachable, TCP reset, ...)
     * @param reconnects TCP reconnections after the first connection
     * @param writeTimeouts TCP connections dropped because the collector stopped reading
     * @param domains observation domains currently kept
     * @param domainsEvicted domains forgotten to stay within {@link
     *     IpfixExporterOptions#maxDomains()}
     * @param connected whether the transport can send now
     * @param interfaceNamesCut names and descriptions sent cut to {@link
     *     IpfixExporterOptions#interfaceNameMaxBytes()} (one per field per options record)
     * @param interfacesForgotten interfaces forgotten as announced past {@link
     *     IpfixExporterOptions#maxInterfaces()} in a domain (their names go out again with their
     *     next flow)
     */
    public record Metrics(
            long flowsIn,
            long recordsSent,
            long recordsDropped,
            long messagesSent,
            long bytesSent,
            long templateSends,
            long sendErrors,
            long reconnects,
            long writeTimeouts,
            int domains,
            long domainsEvicted,
            boolean connected,
            long interfaceNamesCut,
            long interfacesForgotten) {}

    /** Per observation domain: the message being filled and the template state. */
    private static final class Domain {
        final long id;
        final ByteBuffer buffer;

        /** Per domain, so a forgotten domain takes its sequence number with it. */
        IpfixEncoder encoder = new IpfixEncoder();

        IpfixEncoder.Message message;
        int currentSet = -1;
        int records;
        long openedNanos;
        long lastTemplatesNanos;
        boolean templatesSent;
        int templateSession = -1;
        int messagesSinceTemplates;
        final Map<Long, Boolean> announcedRates =
                new LinkedHashMap<>(16, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                        return size() > REMEMBERED_RATES;
                    }
                };

        /**
         * Interface names and descriptions as announced, by ifIndex; cleared with the templates.
         */
        final Map<Long, InterfaceName> announcedInterfaces;

        /** The rate of the previous record, announced in this message or before (0: none). */
        long lastRate;

        Domain(long id, int size, int maxInterfaces, Runnable forgotten) {
            this.id = id;
            this.buffer = ByteBuffer.allocate(size);
            this.announcedInterfaces =
                    new LinkedHashMap<>(16, 0.75f, true) {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<Long, InterfaceName> eldest) {
                            if (size() <= maxInterfaces) {
                                return false;
                            }
                            forgotten.run();
                            return true;
                        }
                    };
        }
    }

    /**
     * An interface's name and description as sent: UTF-8, cut to the configured bytes.
     *
     * @param cutFields how many of the two were cut (counted when announced)
     */
    record InterfaceName(byte[] name, byte[] description, int cutFields) {

        static InterfaceName of(InterfaceContext i, int maxBytes) {
            byte[] name = i.name().getBytes(StandardCharsets.UTF_8);
            byte[] description = i.description().getBytes(StandardCharsets.UTF_8);
            int cutFields =
                    (name.length > maxBytes ? 1 : 0) + (description.length > maxBytes ? 1 : 0);
            return new InterfaceName(cut(name, maxBytes), cut(description, maxBytes), cutFields);
        }

        boolean isEmpty() {
            return name.length == 0 && description.length == 0;
        }

        /** The options record's length: ifIndex, then two variable-length fields. */
        int recordLength() {
            return 4 + varLength(name) + varLength(description);
        }

        private static int varLength(byte[] b) {
            return (b.length < 255 ? 1 : 3) + b.length;
        }

        static byte[] cut(byte[] b, int maxBytes) {
            if (b.length <= maxBytes) {
                return b;
            }
            int end = maxBytes;
            while (end > 0 && (b[end] & 0xc0) == 0x80) {
                end--; // not inside a character
            }
            return Arrays.copyOf(b, end);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof InterfaceName n
                    && Arrays.equals(name, n.name)
                    && Arrays.equals(description, n.description);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(name) + Arrays.hashCode(description);
        }

        @Override
        public String toString() {
            return new String(name, StandardCharsets.UTF_8)
                    + " / "
                    + new String(description, StandardCharsets.UTF_8);
        }
    }

    private final IpfixExporterOptions.Target target;
    private final IpfixExporterOptions options;
    private final InstantSource clock;
    private final IpfixTransport transport;

    /** Access order: the eldest entry is the least recently used domain. */
    private final LinkedHashMap<Long, Domain> domains = new LinkedHashMap<>(16, 0.75f, true);

    private final ScheduledExecutorService timer;
    private int session;
    private boolean closed;

    // Written under the lock, read without it: metrics() must not wait for a send in progress.
    private volatile long flowsIn;
    private volatile long recordsSent;
    private volatile long recordsDropped;
    private volatile long messagesSent;
    private volatile long bytesSent;
    private volatile long templateSends;
    private volatile long sendErrors;
    private volatile long domainsEvicted;
    private volatile long interfaceNamesCut;
    private volatile long interfacesForgotten;
    private volatile int domainCount;

    /** {@link IpfixExporterOptions#interfaceNameMaxBytes()}, less where it would not fit. */
    private final int nameMaxBytes;

    private IOException lastError;
    private long nextSendNanos;
    private Domain lastDomain;

    /** An exporter to {@code target} with the system clock and its own timer thread. */
    public IpfixExporter(IpfixExporterOptions.Target target, IpfixExporterOptions options)
            throws IOException {
        this(target, options, InstantSource.system(), true);
    }

    /**
     * An exporter with an injected clock (export times) and, if {@code withTimer} is false, no
     * timer: the caller then calls {@link #tick()}.
     */
    public IpfixExporter(
            IpfixExporterOptions.Target target,
            IpfixExporterOptions options,
            InstantSource clock,
            boolean withTimer)
            throws IOException {
        this.target = target;
        this.options = options;
        this.clock = clock;
        int fitting = fittingNameBytes(options.maxMessageBytes());
        this.nameMaxBytes = Math.min(options.interfaceNameMaxBytes(), fitting);
        if (nameMaxBytes < options.interfaceNameMaxBytes()) {
            LOG.warn(
                    "ipfix export to {}: interface names cut to {} bytes, not {}: two interfaces'"
                            + " names must fit a {}-byte message with a flow"
                            + " (flowhouse.ipfix.interface-name-max-bytes, max-message-bytes)",
                    target,
                    nameMaxBytes,
                    options.interfaceNameMaxBytes(),
                    options.maxMessageBytes());
        }
        this.transport = IpfixTransport.open(target, options);
        try {
            if (target.transport() == IpfixExporterOptions.Transport.TCP
                    && !transport.awaitReady(STARTUP_CONNECT)) {
                LOG.warn("ipfix collector {} not reachable yet; retrying with backoff", target);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            transport.close();
            throw new IOException("interrupted while connecting to " + target, e);
        }
        this.session = transport.session();
        if (withTimer) {
            timer =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "flowhouse-ipfix-" + target);
                                t.setDaemon(true);
                                return t;
                            });
            timer.scheduleWithFixedDelay(
                    this::tickQuietly, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            timer = null;
        }
    }

    public IpfixExporterOptions.Target target() {
        return target;
    }

    /**
     * Adds one flow to the message of its observation domain, sending the message first if the
     * record does not fit. A flow for a disconnected TCP collector is dropped and counted.
     *
     * @throws IOException only if the exporter is closed
     */
    public synchronized void export(FlowRecord flow) throws IOException {
        export(flow, null);
    }

    /**
     * As {@link #export(FlowRecord)}, with the flow's context (null: none): its AS numbers replace
     * the flow's, and the names of its interfaces are announced in the flow's domain first where
     * they are new there.
     */
    public synchronized void export(FlowRecord flow, FlowContext context) throws IOException {
        if (closed) {
            throw new IOException("ipfix exporter to " + target + " is closed");
        }
        flowsIn++;
        long domain =
                options.observationDomainId() >= 0
                        ? options.observationDomainId()
                        : flow.observationDomainId();
        InterfaceName in = null;
        InterfaceName out = null;
        if (context != null) {
            if (flow.srcAs() != context.srcAs() || flow.dstAs() != context.dstAs()) {
                flow = flow.toBuilder().srcAs(context.srcAs()).dstAs(context.dstAs()).build();
            }
            in = named(flow.inputInterface(), context.in());
            out = named(flow.outputInterface(), context.out());
        }
        boolean biflow = flow.reverseBytes() != 0 || flow.reversePackets() != 0;
        if (biflow && options.biflowMode() == IpfixExporterOptions.BiflowMode.SPLIT) {
            if (flow.bytes() != 0 || flow.packets() != 0) {
                write(domain, forwardOf(flow), in, out);
            }
            write(domain, reverseOf(flow), out, in);
        } else {
            write(domain, flow, in, out);
        }
    }

    /** The interface's name to announce, or null: no ifIndex, or nothing known of it. */
    private InterfaceName named(long ifIndex, InterfaceContext i) {
        if (ifIndex == 0 || (i.name().isEmpty() && i.description().isEmpty())) {
            return null;
        }
        InterfaceName n = InterfaceName.of(i, nameMaxBytes);
        return n.isEmpty() ? null : n;
    }

    /** The forward half of a biflow: the same record without reverse counters. */
    static FlowRecord forwardOf(FlowRecord f) {
        return f.toBuilder().reverseBytes(0).reversePackets(0).build();
    }

    /**
     * The reverse half of a biflow as a uniflow: reverse counters, with addresses, ports, prefix
     * lengths, MACs, AS numbers and interfaces swapped (RFC 5103 §6).
     */
    static FlowRecord reverseOf(FlowRecord f) {
        return f.toBuilder()
                .srcAddr(f.dstAddr())
                .dstAddr(f.srcAddr())
                .srcPort(f.dstPort())
                .dstPort(f.srcPort())
                .srcPrefixLen(f.dstPrefixLen())
                .dstPrefixLen(f.srcPrefixLen())
                .srcMac(f.dstMac())
                .dstMac(f.srcMac())
                .srcAs(f.dstAs())
                .dstAs(f.srcAs())
                .inputInterface(f.outputInterface())
                .outputInterface(f.inputInterface())
                .bytes(f.reverseBytes())
                .packets(f.reversePackets())
                .reverseBytes(0)
                .reversePackets(0)
                .build();
    }

    /**
     * Writes one record, the sampling rate's options record first where it is new, and the names of
     * its interfaces ({@code in}, {@code out}: null when none) where they are new.
     */
    private void write(long domainId, FlowRecord r, InterfaceName in, InterfaceName out) {
        if (!connectedFor()) {
            recordsDropped++;
            return;
        }
        Domain d = lastDomain;
        if (d == null || d.id != domainId) {
            d = domain(domainId);
            lastDomain = d;
        }
        Template t = IpfixEncoder.templateFor(r);
        long rate = Math.max(1L, r.samplingRate());
        InterfaceName newIn = news(d, r.inputInterface(), in);
        InterfaceName newOut =
                r.outputInterface() == r.inputInterface()
                        ? null
                        : news(d, r.outputInterface(), out);
        int names = nameBytes(d, newIn, newOut);
        if (d.message != null
                && d.message.length() + need(d, t, rate) + names > options.maxMessageBytes()) {
            sendDomain(d);
        }
        if (d.message == null) {
            open(d, System.nanoTime());
            // The templates may have gone out again: every name is new once more.
            newIn = news(d, r.inputInterface(), in);
            newOut =
                    r.outputInterface() == r.inputInterface()
                            ? null
                            : news(d, r.outputInterface(), out);
        }
        announce(d, r.inputInterface(), newIn);
        announce(d, r.outputInterface(), newOut);
        if (rate != d.lastRate && d.announcedRates.get(rate) == null) {
            d.message
                    .data(IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE_ID)
                    .u64(rate)
                    .u32(1)
                    .u32(rate - 1)
                    .endRecord();
            d.currentSet = IpfixEncoder.SAMPLING_OPTIONS_TEMPLATE_ID;
            d.announcedRates.put(rate, Boolean.TRUE);
        }
        d.lastRate = rate;
        d.message.data(t.templateId());
        d.currentSet = t.templateId();
        IpfixEncoder.writeFlow(d.message, t, r);
        d.records++;
    }

    /** {@code n} when the domain has not announced it for this ifIndex, else null. */
    private static InterfaceName news(Domain d, long ifIndex, InterfaceName n) {
        if (n == null || n.equals(d.announcedInterfaces.get(ifIndex))) {
            return null;
        }
        return n;
    }

    /** Bytes the names' options records add: a set header and their records. */
    private static int nameBytes(Domain d, InterfaceName in, InterfaceName out) {
        if (in == null && out == null) {
            return 0;
        }
        return IpfixDecoder.SET_HEADER_SIZE
                + (in == null ? 0 : in.recordLength())
                + (out == null ? 0 : out.recordLength())
                + IpfixDecoder.SET_HEADER_SIZE;
    }

    private void announce(Domain d, long ifIndex, InterfaceName n) {
        if (n == null) {
            return;
        }
        interfaceNamesCut += n.cutFields();
        d.message
                .data(INTERFACE_OPTIONS_ID)
                .u32(ifIndex)
                .varBytes(n.name())
                .varBytes(n.description())
                .endRecord();
        d.currentSet = INTERFACE_OPTIONS_ID;
        d.announcedInterfaces.put(ifIndex, n);
    }

    /**
     * The domain's state, made on first use; past {@link IpfixExporterOptions#maxDomains()} the
     * least recently used domain sends what it holds and is forgotten.
     */
    private Domain domain(long id) {
        Domain d = domains.get(id);
        if (d != null) {
            return d;
        }
        if (domains.size() >= options.maxDomains()) {
            Iterator<Domain> eldest = domains.values().iterator();
            Domain gone = eldest.next();
            if (gone.message != null) {
                sendDomain(gone);
            }
            eldest.remove();
            if (gone == lastDomain) {
                lastDomain = null;
            }
            domainsEvicted++;
            if (domainsEvicted == 1 || domainsEvicted % 10_000 == 0) {
                LOG.warn(
                        "ipfix export to {}: more than {} observation domains, forgetting the"
                                + " least recently used ({} so far; flowhouse.ipfix.max-domains)",
                        target,
                        options.maxDomains(),
                        domainsEvicted);
            }
        }
        d =
                new Domain(
                        id,
                        options.maxMessageBytes(),
                        options.maxInterfaces(),
                        () -> interfacesForgotten++);
        domains.put(id, d);
        domainCount = domains.size();
        return d;
    }

    /** Bytes the record (plus set headers and a new rate's options record) adds. */
    private static int need(Domain d, Template t, long rate) {
        int n = t == V4 ? V4_LENGTH : V6_LENGTH;
        if (rate != d.lastRate && !d.announcedRates.containsKey(rate)) {
            n +=
                    IpfixDecoder.SET_HEADER_SIZE
                            + OPTIONS_RECORD_LENGTH
                            + IpfixDecoder.SET_HEADER_SIZE;
        } else if (d.currentSet != t.templateId()) {
            n += IpfixDecoder.SET_HEADER_SIZE;
        }
        return n;
    }

    /** {@link #connectedFor(long)} without reading the clock for UDP, which is always ready. */
    private boolean connectedFor() {
        return target.transport() == IpfixExporterOptions.Transport.UDP
                || connectedFor(System.nanoTime());
    }

    /** True when the transport can send; starts a fresh encoder after a TCP reconnect. */
    private boolean connectedFor(long now) {
        if (!transport.ready(now)) {
            return false;
        }
        if (transport.session() != session) {
            session = transport.session();
            for (Domain d : domains.values()) {
                // A message begun after the old session failed never went out.
                recordsDropped += d.records;
                d.encoder = new IpfixEncoder();
                d.message = null;
                d.records = 0;
            }
            LOG.info("ipfix collector {} connected again, new transport session", target);
        }
        return true;
    }

    private boolean templatesDue(Domain d, long now) {
        if (!d.templatesSent || d.templateSession != session) {
            return true;
        }
        if (target.transport() == IpfixExporterOptions.Transport.TCP) {
            return false;
        }
        return now - d.lastTemplatesNanos >= options.templateRefreshInterval().toNanos()
                || d.messagesSinceTemplates >= options.templateRefreshMessages();
    }

    private void open(Domain d, long now) {
        d.buffer.clear();
        d.message = d.encoder.begin(d.buffer, d.id, clock.millis() / 1000);
        d.currentSet = -1;
        d.records = 0;
        d.openedNanos = now;
        if (templatesDue(d, now)) {
            d.message
                    .template(V4)
                    .template(V6)
                    .template(SAMPLING_OPTIONS)
                    .template(INTERFACE_OPTIONS);
            d.templatesSent = true;
            d.templateSession = session;
            d.lastTemplatesNanos = now;
            d.messagesSinceTemplates = 0;
            // A collector that lost the templates lost the options data with them.
            d.announcedRates.clear();
            d.announcedInterfaces.clear();
            d.lastRate = 0;
            templateSends++;
        }
    }

    private void sendDomain(Domain d) {
        int length = d.message.finish();
        int records = d.records;
        d.message = null;
        d.records = 0;
        d.messagesSinceTemplates++;
        d.buffer.flip();
        pace();
        try {
            transport.send(d.buffer);
            messagesSent++;
            bytesSent += length;
            recordsSent += records;
        } catch (IOException e) {
            sendErrors++;
            recordsDropped += records;
            if (lastError == null || sendErrors % 1000 == 1) {
                LOG.warn(
                        "ipfix send to {} failed ({} failures so far): {}",
                        target,
                        sendErrors,
                        e.toString());
            }
            lastError = e;
            if (target.transport() == IpfixExporterOptions.Transport.TCP) {
                // The other open messages belong to the dead session.
                for (Domain other : domains.values()) {
                    if (other.message != null) {
                        recordsDropped += other.records;
                        other.message = null;
                        other.records = 0;
                    }
                }
            }
        }
    }

    /**
     * Waits for the next send slot when pacing is on. Strict, no burst: goflow2 decodes datagrams
     * on several workers, so a data message right behind its template message can lose the race and
     * be dropped as "template not found".
     */
    private void pace() {
        int rate = options.maxMessagesPerSecond();
        if (rate <= 0) {
            return;
        }
        long interval = 1_000_000_000L / rate;
        long now = System.nanoTime();
        if (nextSendNanos - now < 0) {
            nextSendNanos = now;
        }
        long wait = nextSendNanos - now;
        if (wait > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
        nextSendNanos += interval;
    }

    /** Sends every partly filled message now. */
    public synchronized void flush() {
        for (Domain d : new ArrayList<>(domains.values())) {
            if (d.message != null) {
                sendDomain(d);
            }
        }
    }

    /**
     * Timer work: sends messages older than the linger, refreshes templates of idle UDP domains,
     * and advances a pending TCP connection.
     */
    public synchronized void tick() {
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        boolean up = connectedFor(now);
        List<Domain> all = new ArrayList<>(domains.values());
        for (Domain d : all) {
            if (d.message != null && now - d.openedNanos >= options.linger().toNanos()) {
                sendDomain(d);
            }
            if (up
                    && d.message == null
                    && target.transport() == IpfixExporterOptions.Transport.UDP
                    && templatesDue(d, now)) {
                open(d, now);
                sendDomain(d);
            }
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.error("ipfix exporter timer for {} failed", target, e);
        }
    }

    /** Current counters; never waits for the lock (a TCP send may hold it for the timeout). */
    public Metrics metrics() {
        return new Metrics(
                flowsIn,
                recordsSent,
                recordsDropped,
                messagesSent,
                bytesSent,
                templateSends,
                sendErrors,
                transport.reconnects(),
                transport.writeTimeouts(),
                domainCount,
                domainsEvicted,
                transport.connected(),
                interfaceNamesCut,
                interfacesForgotten);
    }

    /**
     * Makes a TCP send that waits for the collector give up at once, and every later one (the
     * messages are lost and counted); for a closing owner on another thread. Does not take the
     * lock.
     */
    public void abortSend() {
        transport.abortSend();
    }

    /** Sends what is pending, stops the timer and closes the socket. */
    @Override
    public void close() {
        close(true);
    }

    /**
     * Closes; with {@code sendPending} false the partly filled messages are dropped and counted
     * instead of sent (an owner that already gave up on the collector).
     */
    public void close(boolean sendPending) {
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            if (sendPending && connectedFor(System.nanoTime())) {
                flush();
            }
            for (Domain d : domains.values()) {
                if (d.message != null) {
                    recordsDropped += d.records;
                    d.message = null;
                    d.records = 0;
                }
            }
            closed = true;
            transport.close();
        }
    }
}
