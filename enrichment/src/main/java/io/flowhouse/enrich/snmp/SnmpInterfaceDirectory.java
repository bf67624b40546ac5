// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.config.Types;
import io.flowhouse.enrich.InterfaceDirectory;
import io.flowhouse.enrich.InterfaceInfo;
import io.flowhouse.enrich.snmp.ExporterPoll.Outcome;
import io.flowhouse.enrich.snmp.SnmpCredential.AuthProtocol;
import io.flowhouse.enrich.snmp.SnmpCredential.PrivProtocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.snmp4j.CommunityTarget;
import org.snmp4j.MessageDispatcherImpl;
import org.snmp4j.Snmp;
import org.snmp4j.Target;
import org.snmp4j.UserTarget;
import org.snmp4j.mp.MPv2c;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.security.AuthHMAC128SHA224;
import org.snmp4j.security.AuthHMAC192SHA256;
import org.snmp4j.security.AuthHMAC256SHA384;
import org.snmp4j.security.AuthHMAC384SHA512;
import org.snmp4j.security.AuthMD5;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.PrivAES192;
import org.snmp4j.security.PrivAES256;
import org.snmp4j.security.PrivDES;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModel;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.USM;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.transport.DefaultUdpTransportMapping;
import org.snmp4j.util.DefaultPDUFactory;
import org.snmp4j.util.TableUtils;

/**
 * Exporter and interface names learned by polling each exporter's SNMP agent (v2c or v3), in the
 * background. {@link #observe} adds an exporter; a scheduler polls it at once, then every refresh
 * interval, with at most max-in-flight polls at a time. Lookups read the last complete poll from
 * memory and never wait; an exporter not (yet) polled answers empty, and one whose poll fails keeps
 * what it answered before.
 *
 * <p>Everything an agent can grow is bounded: exporters held (least recently observed dropped),
 * interfaces per exporter, string lengths. Each bound is a key ({@link SnmpKeys}) with a counter
 * ({@link SnmpCounters}).
 */
public final class SnmpInterfaceDirectory implements InterfaceDirectory, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SnmpInterfaceDirectory.class);
    private static final long TICK_MILLIS = 200;

    private final SnmpOptions options;
    private final SnmpCounters counters = new SnmpCounters();
    private final ConcurrentHashMap<InetAddress, ExporterState> exporters =
            new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong version = new AtomicLong();
    private final Snmp snmp;
    private final TableUtils tables;
    private final ScheduledExecutorService scheduler;
    // v3 engine discovery may wait on the network inside send: starts never run on the tick.
    private final ExecutorService starter;
    private final long pollDeadlineNanos;
    private final AtomicBoolean loggedNoCredentials = new AtomicBoolean();
    private volatile long now = System.nanoTime();
    private volatile boolean closed;

    private SnmpInterfaceDirectory(SnmpOptions options, Snmp snmp) {
        this.options = options;
        this.snmp = snmp;
        this.tables = new TableUtils(snmp, new DefaultPDUFactory(org.snmp4j.PDU.GETBULK));
        tables.setMaxNumRowsPerPDU(options.maxRepetitions());
        // A safety net only: every request of a poll timing out after every retry, and then some.
        long requests = 4 + 4L * ((options.maxInterfaces() / options.maxRepetitions()) + 1);
        long deadline;
        try {
            deadline =
                    Math.multiplyExact(
                            Math.multiplyExact(options.timeout().toNanos(), options.retries() + 1L),
                            requests);
        } catch (ArithmeticException e) {
            deadline = Long.MAX_VALUE;
        }
        this.pollDeadlineNanos = deadline;
        this.scheduler =
                Executors.newSingleThreadScheduledExecutor(daemon("flowhouse-snmp-scheduler"));
        this.starter =
                Executors.newFixedThreadPool(
                        Math.min(options.maxInFlight(), 4), daemon("flowhouse-snmp-start"));
    }

    /**
     * Opens the SNMP socket and starts the scheduler.
     *
     * @throws IOException when the UDP socket cannot be opened
     */
    public static SnmpInterfaceDirectory start(SnmpOptions options) throws IOException {
        SecurityProtocols protocols =
                new SecurityProtocols(SecurityProtocols.SecurityProtocolSet.maxCompatibility);
        USM usm = new USM(protocols, new OctetString(MPv3.createLocalEngineID()), 0);
        for (SnmpCredential c : options.credentials().entries()) {
            if (c.version() == SnmpCredential.Version.V3) {
                usm.addUser(
                        new UsmUser(
                                new OctetString(c.user()),
                                authOid(c.authProtocol()),
                                passphrase(
                                        c.authPassphrase(), c.authProtocol() != AuthProtocol.NONE),
                                privOid(c.privProtocol()),
                                passphrase(
                                        c.privPassphrase(),
                                        c.privProtocol() != PrivProtocol.NONE)));
            }
        }
        MessageDispatcherImpl dispatcher = new MessageDispatcherImpl();
        dispatcher.addMessageProcessingModel(new MPv2c());
        dispatcher.addMessageProcessingModel(new MPv3(usm));
        Snmp snmp = new Snmp(dispatcher, new DefaultUdpTransportMapping());
        snmp.listen();
        SnmpInterfaceDirectory directory = new SnmpInterfaceDirectory(options, snmp);
        directory.scheduler.scheduleWithFixedDelay(
                directory::tickSafely, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
        return directory;
    }

    @Override
    public long version() {
        return version.get();
    }

    @Override
    public Optional<InterfaceInfo> lookupInterface(InetAddress exporter, long ifIndex) {
        ExporterState state = exporters.get(exporter);
        return state == null
                ? Optional.empty()
                : Optional.ofNullable(state.snapshot.lookup(ifIndex));
    }

    @Override
    public Optional<String> exporterName(InetAddress exporter) {
        ExporterState state = exporters.get(exporter);
        if (state == null || state.snapshot.sysName().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(state.snapshot.sysName());
    }

    @Override
    public void observe(InetAddress exporter) {
        ExporterState state = exporters.get(exporter);
        long t = now;
        if (state != null) {
            // Coarse clock: a flow of a known exporter writes at most once per tick.
            if (state.lastObserved != t) {
                state.lastObserved = t;
            }
            return;
        }
        if (closed) {
            return;
        }
        // Between two ticks (which drop the least recently observed) a flood of new exporters
        // is refused beyond twice the bound.
        if (exporters.size() >= 2L * options.maxExporters()) {
            counters.exportersDropped.incrementAndGet();
            return;
        }
        SnmpCredential credential = options.credentials().forExporter(exporter);
        if (exporters.putIfAbsent(exporter, new ExporterState(exporter, credential, t)) == null
                && credential == null) {
            counters.exportersWithoutCredentials.incrementAndGet();
            // The first at INFO, the rest at DEBUG: a wide spread of exporters must not flood.
            if (loggedNoCredentials.compareAndSet(false, true)) {
                LOG.info(
                        "snmp: no credentials cover exporter {}; not polled (further ones at DEBUG,"
                                + " counted in snmp exporters without credentials)",
                        exporter.getHostAddress());
            } else {
                LOG.debug("snmp: no credentials cover exporter {}", exporter.getHostAddress());
            }
        }
    }

    public SnmpCounters counters() {
        return counters;
    }

    /** Exporters held now. */
    public int exporterCount() {
        return exporters.size();
    }

    /** Polls running now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Everything known of one exporter's interfaces, by ifIndex (for checks and the CLI). */
    public Map<Long, InterfaceInfo> interfaces(InetAddress exporter) {
        ExporterState state = exporters.get(exporter);
        return state == null ? Map.of() : state.snapshot.asMap();
    }

    /** The last poll's error for this exporter, or empty when it answered (or was not polled). */
    public Optional<String> lastError(InetAddress exporter) {
        ExporterState state = exporters.get(exporter);
        return state == null ? Optional.empty() : Optional.ofNullable(state.lastError);
    }

    /** True when the exporter is held (for tests). */
    boolean holds(InetAddress exporter) {
        return exporters.containsKey(exporter);
    }

    /** The coarse clock that observations are stamped with (for tests). */
    long clock() {
        return now;
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        starter.shutdownNow();
        try {
            snmp.close();
        } catch (IOException e) {
            LOG.warn("snmp: closing the socket: {}", e.toString());
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            // A failed tick must not end the schedule.
            LOG.error("snmp: scheduler tick failed", e);
        }
    }

    private void tick() {
        long t = System.nanoTime();
        now = t;
        dropLeastRecentlyObserved();
        for (ExporterState state : exporters.values()) {
            ExporterPoll poll = state.poll;
            if (poll != null) {
                if (t - poll.startedNanos() > pollDeadlineNanos) {
                    poll.expire();
                }
                continue;
            }
            if (state.credential == null || t - state.nextPollNanos < 0) {
                continue;
            }
            if (inFlight.get() >= options.maxInFlight()) {
                return;
            }
            startPoll(state, t);
        }
    }

    private void dropLeastRecentlyObserved() {
        int excess = exporters.size() - options.maxExporters();
        if (excess <= 0) {
            return;
        }
        List<ExporterState> all = new ArrayList<>(exporters.values());
        long t = now;
        // Oldest first; nanoTime values are compared by their distance to now.
        all.sort((a, b) -> Long.compare(t - b.lastObserved, t - a.lastObserved));
        for (int i = 0; i < excess && i < all.size(); i++) {
            if (exporters.remove(all.get(i).exporter, all.get(i))) {
                version.incrementAndGet();
                counters.exportersDropped.incrementAndGet();
            }
        }
    }

    private void startPoll(ExporterState state, long t) {
        InetSocketAddress agent = options.agentOf(state.exporter);
        Target<UdpAddress> target = target(state.credential, agent);
        ExporterPoll poll =
                new ExporterPoll(
                        snmp,
                        tables,
                        target,
                        options,
                        counters,
                        t,
                        (p, outcome, snapshot, error) ->
                                finished(state, agent, p, outcome, snapshot, error));
        state.poll = poll;
        inFlight.incrementAndGet();
        try {
            starter.execute(poll::start);
        } catch (RuntimeException e) {
            // Closed meanwhile.
            state.poll = null;
            inFlight.decrementAndGet();
        }
    }

    private void finished(
            ExporterState state,
            InetSocketAddress agent,
            ExporterPoll poll,
            Outcome outcome,
            ExporterSnapshot snapshot,
            String error) {
        long t = System.nanoTime();
        String where =
                "snmp poll of exporter "
                        + state.exporter.getHostAddress()
                        + " (agent "
                        + SnmpOptions.hostPort(agent)
                        + ", "
                        + state.credential.describe()
                        + ")";
        // State first, then the slot, then the counters: whoever reads a counter sees the rest.
        String previousError = state.lastError;
        if (outcome == Outcome.OK) {
            if (!snapshot.equals(state.snapshot)) {
                state.snapshot = snapshot;
                version.incrementAndGet();
            }
            state.lastError = null;
            state.nextPollNanos = t + options.refreshInterval().toNanos();
        } else {
            state.lastError = error;
            state.nextPollNanos = t + options.failedRetryInterval().toNanos();
        }
        if (state.poll == poll) {
            state.poll = null;
        }
        inFlight.decrementAndGet();
        if (outcome == Outcome.OK) {
            counters.pollsOk.incrementAndGet();
            if (previousError != null) {
                LOG.info("{} answers again: {} interfaces", where, snapshot.size());
            }
            return;
        }
        (outcome == Outcome.TIMED_OUT ? counters.pollsTimedOut : counters.pollsFailed)
                .incrementAndGet();
        // Once per failure streak at WARN: thousands of dead agents must not flood the log.
        if (previousError == null) {
            LOG.warn(
                    "{} failed: {}; what it answered before is kept, retried every {}",
                    where,
                    error,
                    Types.formatDuration(options.failedRetryInterval()));
        } else {
            LOG.debug("{} failed again: {}", where, error);
        }
    }

    private Target<UdpAddress> target(SnmpCredential c, InetSocketAddress agent) {
        UdpAddress address = new UdpAddress(agent.getAddress(), agent.getPort());
        Target<UdpAddress> target;
        if (c.version() == SnmpCredential.Version.V2C) {
            CommunityTarget<UdpAddress> ct =
                    new CommunityTarget<>(address, new OctetString(c.community()));
            ct.setVersion(SnmpConstants.version2c);
            target = ct;
        } else {
            UserTarget<UdpAddress> ut = new UserTarget<>();
            ut.setAddress(address);
            ut.setSecurityName(new OctetString(c.user()));
            ut.setSecurityModel(SecurityModel.SECURITY_MODEL_USM);
            ut.setSecurityLevel(
                    c.privProtocol() != PrivProtocol.NONE
                            ? SecurityLevel.AUTH_PRIV
                            : c.authProtocol() != AuthProtocol.NONE
                                    ? SecurityLevel.AUTH_NOPRIV
                                    : SecurityLevel.NOAUTH_NOPRIV);
            ut.setVersion(SnmpConstants.version3);
            target = ut;
        }
        target.setTimeout(options.timeout().toMillis());
        target.setRetries(options.retries());
        return target;
    }

    private static OID authOid(AuthProtocol p) {
        switch (p) {
            case MD5:
                return AuthMD5.ID;
            case SHA:
                return AuthSHA.ID;
            case SHA224:
                return AuthHMAC128SHA224.ID;
            case SHA256:
                return AuthHMAC192SHA256.ID;
            case SHA384:
                return AuthHMAC256SHA384.ID;
            case SHA512:
                return AuthHMAC384SHA512.ID;
            default:
                return null;
        }
    }

    private static OID privOid(PrivProtocol p) {
        switch (p) {
            case DES:
                return PrivDES.ID;
            case AES:
                return PrivAES128.ID;
            case AES192:
                return PrivAES192.ID;
            case AES256:
                return PrivAES256.ID;
            default:
                return null;
        }
    }

    private static OctetString passphrase(String p, boolean used) {
        return used ? new OctetString(p) : null;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One exporter: its credentials, its last complete poll, its schedule. */
    private static final class ExporterState {
        final InetAddress exporter;
        final SnmpCredential credential;
        volatile long lastObserved;
        volatile long nextPollNanos;
        volatile ExporterSnapshot snapshot = ExporterSnapshot.EMPTY;
        volatile ExporterPoll poll;
        volatile String lastError;

        ExporterState(InetAddress exporter, SnmpCredential credential, long now) {
            this.exporter = exporter;
            this.credential = credential;
            this.lastObserved = now;
            this.nextPollNanos = now;
        }
    }
}
