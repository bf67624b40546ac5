// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.HeaderCheck;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.SequenceTracker;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.FlowRecordText;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.codec.sflow.InterfaceCountersText;
import io.flowhouse.codec.sflow.SflowDatagram;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.cli.Cli;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flowhouse decode FILE.pcap [--format jsonl|table]}: decodes the NetFlow v5/v9, IPFIX and
 * sFlow v5 datagrams of a capture (any UDP port; classic or nanosecond pcap, pcapng, gzipped or
 * not; Ethernet, VLAN, IPv4, IPv6) and prints one flow per line, like {@code nfdump -r}, and one
 * line per sFlow counter sample. A summary goes to stderr.
 */
@Command(
        name = "decode",
        description = {
            "Decodes NetFlow v5, NetFlow v9, IPFIX and sFlow v5 datagrams found in a pcap/pcapng"
                    + " file, gzipped or not (any UDP port unless --port is given), and prints"
                    + " every flow record.",
            "Templates are scoped by exporter address and port, version and domain; sFlow"
                    + " sequences by agent address and sub-agent (datagrams) and data source"
                    + " (samples). sFlow flows are one sampled packet each: packets 1, bytes the"
                    + " sampled frame's length (FCS included), samplingInterval the rate they"
                    + " stand for.",
            "A summary (datagrams, records, templates, problems by kind) goes to stderr."
        },
        footer = "Exit code 1 also when the file cannot be read.")
public final class DecodeCommand implements Callable<Integer> {

    /**
     * Largest gzipped capture decompressed (to a temporary file), so a gzip bomb cannot fill it.
     */
    static final long MAX_GUNZIPPED_BYTES = 1L << 30;

    @Parameters(paramLabel = "FILE.pcap[.gz]", description = "Capture to decode.")
    private String file;

    @Option(
            names = {"--format", "-f"},
            paramLabel = "jsonl|table",
            description = {
                "jsonl (default): one JSON object per flow, keyed by IANA information element"
                        + " names plus exporter (addr:port), version, observationDomainId; sFlow"
                        + " flows add sflowAgent, sflowSubAgentId, sflowSampleSequence,"
                        + " sflowSourceIdIndex, sflowSamplePool, sflowDrops, ... (version 105 ="
                        + " sFlow v5); each sFlow counter sample is one object with"
                        + " interfaceCounters/ethernetCounters.",
                "table: one nfdump-like line per flow, one 'counters' line per sFlow counter"
                        + " sample."
            })
    private String format = "jsonl";

    @Option(
            names = "--port",
            paramLabel = "N",
            description = "Only UDP datagrams to (or from) port N; repeatable.")
    private List<Integer> ports = new ArrayList<>();

    @Option(names = "--limit", paramLabel = "N", description = "Stop after N flow records.")
    private long limit = Long.MAX_VALUE;

    @Option(
            names = "--enrich",
            paramLabel = "CONFIG",
            description = {
                "Enrich every flow as the job does with the enrichment keys (enrich.*) of this job"
                        + " configuration file: countries, AS numbers and names, exporter,"
                        + " interface and network names from the rules file, interface names from"
                        + " the capture's options data. jsonl: an object \"context\" with the"
                        + " ClickHouse column names (src_country, src_as, src_as_name, in_if_name,"
                        + " ...); table: more columns. SNMP is not polled offline."
            })
    private Path enrichConfig;

    private final PrintStream out;
    private final PrintStream err;
    private final Function<Path, FlowAnnotator> enrichment;

    private DecodeCommand(
            PrintStream out, PrintStream err, Function<Path, FlowAnnotator> enrichment) {
        this.out = out;
        this.err = err;
        this.enrichment = enrichment;
    }

    /** Entry point for the launcher; returns the exit code (0 ok, 1 file unreadable, 2 usage). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, null);
    }

    /**
     * As {@link #run(String[], PrintStream, PrintStream)}, with {@code --enrich CONFIG} served by
     * {@code enrichment} (the configuration file to an annotator; a bad file throws {@link
     * ConfigException}); null: {@code --enrich} is refused.
     */
    public static int run(
            String[] args,
            PrintStream out,
            PrintStream err,
            Function<Path, FlowAnnotator> enrichment) {
        return Cli.execute(new DecodeCommand(out, err, enrichment), args, out, err);
    }

    @Override
    public Integer call() {
        String f = format.toLowerCase(Locale.ROOT);
        boolean table;
        if (f.equals("table")) {
            table = true;
        } else if (f.equals("jsonl") || f.equals("json")) {
            table = false;
        } else {
            throw new ConfigException("unknown format '" + format + "' (expected: jsonl or table)");
        }
        for (int port : ports) {
            if (port < 0 || port > 65535) {
                throw new ConfigException("--port " + port + " (expected: 0..65535)");
            }
        }
        if (limit < 0) {
            throw new ConfigException("--limit " + limit + " (expected: >= 0)");
        }
        FlowAnnotator annotator = null;
        if (enrichConfig != null) {
            if (enrichment == null) {
                throw new ConfigException(
                        "--enrich needs the enrichment module: run it as ./flowhouse decode");
            }
            annotator = enrichment.apply(enrichConfig);
        }
        Path path = Paths.get(file);
        if (!Files.isReadable(path)) {
            err.println("flowhouse decode: cannot read " + file);
            return 1;
        }
        Path gunzipped = null;
        try {
            if (isGzip(path)) {
                gunzipped = gunzip(path);
            }
            Summary s =
                    decode(
                            gunzipped != null ? gunzipped : path,
                            table,
                            limit,
                            new HashSet<>(ports),
                            out,
                            annotator);
            out.flush();
            s.print(err, path);
            return 0;
        } catch (IOException e) {
            out.flush();
            err.println("flowhouse decode: " + file + ": " + e.getMessage());
            return 1;
        } finally {
            if (gunzipped != null) {
                try {
                    Files.deleteIfExists(gunzipped);
                } catch (IOException e) {
                    err.println("flowhouse decode: cannot delete " + gunzipped);
                }
            }
        }
    }

    private static Map<Long, String> interfaceNames(InMemoryTemplateCache cache, DecodeResult r) {
        return r.scope() == null ? Map.of() : cache.options(r.scope()).interfaceNames();
    }

    /**
     * The names of the flow's VRFs from its exporter's options data (VRFname, IE 236, by VRF id),
     * as {@code ingressVRFname} and {@code egressVRFname}, into the flow's JSON object.
     */
    private static void vrfNames(
            FlowRecord f, InMemoryTemplateCache cache, DecodeResult r, StringBuilder sb) {
        if (r.scope() == null || (f.inputVrfId() == 0 && f.outputVrfId() == 0)) {
            return;
        }
        Map<Long, String> names = cache.options(r.scope()).vrfNames();
        String in = names.get(f.inputVrfId());
        String out = names.get(f.outputVrfId());
        if (in == null && out == null) {
            return;
        }
        sb.setLength(sb.length() - 1);
        if (in != null) {
            FlowRecordText.jsonField(sb, "ingressVRFname", in);
        }
        if (out != null) {
            FlowRecordText.jsonField(sb, "egressVRFname", out);
        }
        sb.append('}');
    }

    private static boolean isGzip(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        } catch (IOException e) {
            return false;
        }
    }

    /** The pcap reader maps files: a gzipped capture is decompressed to a temporary file first. */
    private static Path gunzip(Path path) throws IOException {
        Path tmp = Files.createTempFile("flowhouse-decode-", ".pcap");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(path), 1 << 16);
                var o = Files.newOutputStream(tmp)) {
            byte[] buf = new byte[1 << 16];
            long total = 0;
            for (int n; (n = in.read(buf)) > 0; ) {
                total += n;
                if (total > MAX_GUNZIPPED_BYTES) {
                    throw new IOException(
                            "gzipped capture larger than "
                                    + MAX_GUNZIPPED_BYTES
                                    + " bytes decompressed; gunzip it first");
                }
                o.write(buf, 0, n);
            }
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        return tmp;
    }

    /** Counts for the summary. */
    static final class Summary {
        long packets;
        long udp;
        long datagrams;
        final Map<Integer, Long> byVersion = new TreeMap<>();
        long records;
        long flowPackets;
        long flowBytes;
        final Set<TemplateKey> templates = new HashSet<>();
        long templateRecords;
        long optionsRecords;
        final Map<DecodeProblem.Kind, Long> problems = new EnumMap<>(DecodeProblem.Kind.class);
        final Map<HeaderCheck.Reason, Long> rejected = new EnumMap<>(HeaderCheck.Reason.class);
        final Map<DecodeProblem.Kind, Long> failed = new EnumMap<>(DecodeProblem.Kind.class);
        long notUdp;
        long lost;
        boolean limited;
        long flowSamples;
        long counterSamples;
        long interfaceCounters;
        long unknownSamples;
        long unknownRecords;
        long lostSamples;

        /** The last drops counter of each sFlow data source (a running total). */
        final Map<SequenceTracker.StreamKey, Long> drops = new HashMap<>();

        final SequenceTracker sampleSequences = new SequenceTracker();

        void print(PrintStream err, Path file) {
            err.printf(
                    Locale.ROOT,
                    "%s: %d packets, %d UDP datagrams, %d NetFlow/IPFIX/sFlow datagrams %s%n",
                    file,
                    packets,
                    udp,
                    datagrams,
                    byVersion.isEmpty() ? "" : "(" + versions() + ")");
            err.printf(
                    Locale.ROOT,
                    "records: %d flows, %d packets, %d bytes (forward + reverse); %d options records%n",
                    records,
                    flowPackets,
                    flowBytes,
                    optionsRecords);
            err.printf(
                    Locale.ROOT,
                    "templates: %d distinct, %d template records%n",
                    templates.size(),
                    templateRecords);
            err.printf(
                    Locale.ROOT,
                    "sequence: %d units missing (gaps per exporter/domain; sFlow: datagrams per"
                            + " agent/sub-agent)%n",
                    lost);
            if (byVersion.containsKey(FlowRecord.VERSION_SFLOW5)) {
                long dropped = 0;
                for (long d : drops.values()) {
                    dropped += d;
                }
                err.printf(
                        Locale.ROOT,
                        "sFlow: %d flow samples, %d counter samples (%d with interface counters);"
                                + " skipped by length: %d unknown samples, %d unknown records;"
                                + " %d samples missing (sequence gaps per data source); agents"
                                + " report %d samples dropped%n",
                        flowSamples,
                        counterSamples,
                        interfaceCounters,
                        unknownSamples,
                        unknownRecords,
                        lostSamples,
                        dropped);
            }
            err.println("problems: " + (problems.isEmpty() ? "none" : problems.toString()));
            if (!failed.isEmpty()) {
                err.println("undecodable datagrams: " + failed);
            }
            if (!rejected.isEmpty()) {
                err.println("UDP datagrams that are not NetFlow/IPFIX/sFlow: " + rejected);
            }
            if (limited) {
                err.println("stopped at --limit");
            }
        }

        private String versions() {
            StringBuilder sb = new StringBuilder();
            byVersion.forEach(
                    (v, n) -> {
                        if (sb.length() > 0) {
                            sb.append(", ");
                        }
                        sb.append(
                                        v == 10
                                                ? "IPFIX"
                                                : v == FlowRecord.VERSION_SFLOW5
                                                        ? "sFlow v5"
                                                        : "v" + v)
                                .append(' ')
                                .append(n);
                    });
            return sb.toString();
        }
    }

    static Summary decode(Path path, boolean table, long limit, Set<Integer> ports, PrintStream out)
            throws IOException {
        return decode(path, table, limit, ports, out, null);
    }

    static Summary decode(
            Path path,
            boolean table,
            long limit,
            Set<Integer> ports,
            PrintStream out,
            FlowAnnotator annotator)
            throws IOException {
        Summary s = new Summary();
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        SequenceTracker sequences = new SequenceTracker();
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        StringBuilder sb = new StringBuilder(1 << 16);
        if (table) {
            out.println(
                    FlowRecordText.tableHeader()
                            + (annotator == null ? "" : annotator.tableHeader()));
        }
        try (PcapReader reader = PcapReader.open(path)) {
            while (reader.next()) {
                s.packets++;
                UdpDatagram d =
                        extractor.extract(
                                reader.packetLinkType(), reader.packet(), reader.timestampNanos());
                if (d == null) {
                    s.notUdp++;
                    continue;
                }
                s.udp++;
                if (!ports.isEmpty()
                        && !ports.contains(d.dstPort())
                        && !ports.contains(d.srcPort())) {
                    continue;
                }
                HeaderCheck.Verdict v = HeaderCheck.check(d.payload());
                if (!v.ok()) {
                    s.rejected.merge(v.reason(), 1L, Long::sum);
                    continue;
                }
                s.datagrams++;
                s.byVersion.merge(v.version(), 1L, Long::sum);
                ExporterKey exporter = new ExporterKey(d.src(), d.srcPort());
                DecodeResult r;
                try {
                    r =
                            decoder.decode(
                                    d.payload(),
                                    new DecodeContext(exporter, d.timestampNanos() / 1_000_000L),
                                    cache);
                } catch (DecodeException e) {
                    s.failed.merge(e.kind(), 1L, Long::sum);
                    continue;
                }
                SflowDatagram sflow = r.sflow();
                if (sflow != null) {
                    // sFlow sequences belong to the agent, whatever address the datagram came from.
                    sequences.observe(new ExporterKey(sflow.agentAddress(), 0), r);
                    s.flowSamples += sflow.flowSamples();
                    s.counterSamples += sflow.counterSamples();
                    s.interfaceCounters += sflow.counters().size();
                    s.unknownSamples += sflow.unknownSamples();
                    s.unknownRecords += sflow.unknownRecords();
                    for (FlowRecord f : r.records()) {
                        SflowFields x = f.sflow();
                        SequenceTracker.StreamKey source =
                                new SequenceTracker.StreamKey(
                                        new ExporterKey(x.agentAddress(), 0),
                                        FlowRecord.VERSION_SFLOW5,
                                        (x.subAgentId() << 40)
                                                ^ ((long) x.sourceIdClass() << 32)
                                                ^ x.sourceIdIndex());
                        s.lostSamples +=
                                s.sampleSequences.observe(source, x.sampleSequence(), 1).missing();
                        s.drops.put(source, x.drops());
                    }
                } else {
                    sequences.observe(exporter, r);
                }
                for (var t : r.learned()) {
                    s.templates.add(r.scope().key(t.templateId()));
                    s.templateRecords++;
                }
                s.optionsRecords += r.optionsRecords();
                r.problemCounts()
                        .asMap()
                        .forEach((k, n) -> s.problems.merge(k, (long) n, Long::sum));
                for (FlowRecord f : r.records()) {
                    if (s.records >= limit) {
                        s.limited = true;
                        break;
                    }
                    s.records++;
                    s.flowPackets += f.packets() + f.reversePackets();
                    s.flowBytes += f.bytes() + f.reverseBytes();
                    if (table) {
                        FlowRecordText.table(f, sb);
                        if (annotator != null) {
                            annotator.table(f, interfaceNames(cache, r), sb);
                        }
                    } else {
                        FlowRecordText.json(f, sb);
                        vrfNames(f, cache, r, sb);
                        if (annotator != null) {
                            // Into the object: its closing brace goes after the context.
                            sb.setLength(sb.length() - 1);
                            annotator.json(f, interfaceNames(cache, r), sb);
                            sb.append('}');
                        }
                    }
                    sb.append('\n');
                    if (sb.length() > (1 << 15)) {
                        out.print(sb);
                        sb.setLength(0);
                    }
                }
                if (sflow != null && !s.limited) {
                    for (InterfaceCounters c : sflow.counters()) {
                        if (table) {
                            InterfaceCountersText.line(c, sb);
                        } else {
                            InterfaceCountersText.json(c, sb);
                        }
                        sb.append('\n');
                    }
                }
                if (s.limited) {
                    break;
                }
            }
        }
        out.print(sb);
        s.lost = sequences.totalLost();
        return s;
    }
}
