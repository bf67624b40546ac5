// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.agent.cli.FlowAnnotator;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.LearnedInterfaces;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.geo.MmdbRecord;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.cli.JobArgs;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./flowhouse decode --enrich CONFIG}: each flow's context as the job computes it, from the
 * enrichment keys of the job's configuration file (databases, rules file, AS order) and the
 * capture's own options data (interface names), named as the ClickHouse columns. SNMP is not
 * polled: a pcap is looked at offline.
 */
final class DecodeEnrichment implements FlowAnnotator {

    private final Enricher enricher;
    private final GeoLookup geo;
    private final LearnedInterfaces learned;
    private final Map<Map<Long, String>, Boolean> taught = new IdentityHashMap<>();

    private DecodeEnrichment(EnrichSettings s, PrintStream err) {
        this.learned = s.newLearnedInterfaces();
        this.enricher = s.open(List.of(learned));
        this.geo = s.openGeo();
        report("country database", geo.countryDb(), err);
        report("ASN database", geo.asnDb(), err);
    }

    /** The annotator of the job configuration {@code file}; a bad file is a usage error. */
    static DecodeEnrichment open(Path file, Map<String, String> env, PrintStream err) {
        if (!Files.isReadable(file)) {
            throw new ConfigException("--enrich " + file + ": cannot read the file");
        }
        Config c =
                JobArgs.resolve(
                        env,
                        new PrintStream(OutputStream.nullOutputStream()),
                        "--config",
                        file.toString());
        EnrichSettings s = EnrichKeys.settings(c);
        if (!s.enabled()) {
            throw new ConfigException(
                    "--enrich "
                            + file
                            + ": no enrich.geoip.*, enrich.rules-file or SNMP key set there");
        }
        if (s.snmp() != null) {
            err.println(
                    "decode --enrich: SNMP is not polled offline (interface names from the"
                            + " rules file and the capture's options data only)");
        }
        return new DecodeEnrichment(s, err);
    }

    private static void report(String what, MmdbFile db, PrintStream err) {
        if (db != null && !db.loaded()) {
            err.println("decode --enrich: " + what + " " + db.path() + ": " + db.lastError());
        }
    }

    private FlowContext context(FlowRecord f, Map<Long, String> interfaceNames) {
        if (!interfaceNames.isEmpty() && taught.put(interfaceNames, Boolean.TRUE) == null) {
            for (Map.Entry<Long, String> e : interfaceNames.entrySet()) {
                learned.learn(f.exporterAddress().toInetAddress(), e.getKey(), e.getValue(), "");
            }
        }
        return enricher.enrich(
                f.exporterAddress(),
                f.inputInterface(),
                f.outputInterface(),
                f.srcAddr(),
                f.dstAddr(),
                f.srcAs(),
                f.dstAs(),
                System.nanoTime());
    }

    /** The database's name of {@code as}, when the database gives that number for the address. */
    private String asName(IpAddress address, long as) {
        MmdbRecord r = geo.asRecord(address, System.nanoTime());
        return r != null && r.asn() == as && r.asName() != null ? r.asName() : "";
    }

    @Override
    public void json(FlowRecord f, Map<Long, String> interfaceNames, StringBuilder sb) {
        FlowContext c = context(f, interfaceNames);
        sb.append(",\"context\":{");
        int start = sb.length();
        attributes(sb, "exporter", c.exporter());
        iface(sb, "in_if", c.in());
        iface(sb, "out_if", c.out());
        str(sb, "src_country", c.srcCountry());
        str(sb, "dst_country", c.dstCountry());
        num(sb, "src_as", c.srcAs());
        str(sb, "src_as_name", asName(f.srcAddr(), c.srcAs()));
        num(sb, "dst_as", c.dstAs());
        str(sb, "dst_as_name", asName(f.dstAddr(), c.dstAs()));
        attributes(sb, "src_net", c.srcNetwork());
        attributes(sb, "dst_net", c.dstNetwork());
        if (sb.charAt(start) == ',') {
            sb.deleteCharAt(start);
        }
        sb.append('}');
    }

    @Override
    public void table(FlowRecord f, Map<Long, String> interfaceNames, StringBuilder sb) {
        FlowContext c = context(f, interfaceNames);
        sb.append(
                String.format(
                        Locale.ROOT,
                        " | %-2s %-2s %10d %10d %-12s %-12s %-12s",
                        dash(c.srcCountry()),
                        dash(c.dstCountry()),
                        c.srcAs(),
                        c.dstAs(),
                        dash(c.exporter().name()),
                        dash(c.in().name()),
                        dash(c.out().name())));
    }

    @Override
    public String tableHeader() {
        return String.format(
                Locale.ROOT,
                " | %-2s %-2s %10s %10s %-12s %-12s %-12s",
                "SC",
                "DC",
                "Src AS",
                "Dst AS",
                "Exporter",
                "In if",
                "Out if");
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static void attributes(StringBuilder sb, String prefix, Attributes a) {
        str(sb, prefix + "_name", a.name());
        str(sb, prefix + "_role", a.role());
        str(sb, prefix + "_site", a.site());
        str(sb, prefix + "_region", a.region());
        str(sb, prefix + "_tenant", a.tenant());
    }

    private static void iface(StringBuilder sb, String prefix, InterfaceContext i) {
        str(sb, prefix + "_name", i.name());
        str(sb, prefix + "_description", i.description());
        if (i.speedMbps() != 0) {
            num(sb, prefix + "_speed", i.speedMbps());
        }
        str(sb, prefix + "_boundary", i.boundary().word());
        str(sb, prefix + "_provider", i.provider());
        str(sb, prefix + "_connectivity", i.connectivity());
    }

    /** A text field, left out when empty (as the decode leaves out fields not given). */
    private static void str(StringBuilder sb, String key, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        sb.append(",\"").append(key).append("\":\"");
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (ch < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static void num(StringBuilder sb, String key, long value) {
        sb.append(",\"").append(key).append("\":").append(value);
    }
}
