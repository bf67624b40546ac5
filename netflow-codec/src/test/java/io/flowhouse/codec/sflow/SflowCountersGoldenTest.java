// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Counter samples against pmacct sfacctd 1.7.7's counter log ({@code
 * golden/*.sfacctd-counters.jsonl.gz}: one line per counter record, with every value of the generic
 * interface and Ethernet records, and a bare line for a record it does not print): every counter
 * sample, its sequence, source, record count and every counter value.
 */
class SflowCountersGoldenTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String[] GENERIC = {
        "ifIndex",
        "ifType",
        "ifSpeed",
        "ifDirection",
        "ifStatus",
        "ifInOctets",
        "ifInUcastPkts",
        "ifInMulticastPkts",
        "ifInBroadcastPkts",
        "ifInDiscards",
        "ifInErrors",
        "ifInUnknownProtos",
        "ifOutOctets",
        "ifOutUcastPkts",
        "ifOutMulticastPkts",
        "ifOutBroadcastPkts",
        "ifOutDiscards",
        "ifOutErrors",
        "ifPromiscuousMode"
    };

    private static final String[] ETHERNET = {
        "dot3StatsAlignmentErrors",
        "dot3StatsFCSErrors",
        "dot3StatsSingleCollisionFrames",
        "dot3StatsMultipleCollisionFrames",
        "dot3StatsSQETestErrors",
        "dot3StatsDeferredTransmissions",
        "dot3StatsLateCollisions",
        "dot3StatsExcessiveCollisions",
        "dot3StatsInternalMacTransmitErrors",
        "dot3StatsCarrierSenseErrors",
        "dot3StatsFrameTooLongs",
        "dot3StatsInternalMacReceiveErrors",
        "dot3StatsSymbolErrors"
    };

    /** A counter sample as sfacctd logged it: its records' lines. */
    record Logged(String key, List<JsonNode> records) {}

    private static List<Logged> golden(String name) throws Exception {
        Map<String, Logged> samples = new LinkedHashMap<>();
        for (String l : SflowPeerGoldenTest.golden(name + ".sfacctd-counters.jsonl.gz")) {
            JsonNode n = JSON.readTree(l);
            if (!"log".equals(n.path("event_type").asText())) {
                continue;
            }
            String key =
                    n.get("peer_ip_src").asText()
                            + "/"
                            + n.get("sflow_seq").asLong()
                            + "/"
                            + n.get("source_id_index").asLong()
                            + "/"
                            + n.get("sflow_cnt_seq").asLong();
            samples.computeIfAbsent(key, k -> new Logged(k, new ArrayList<>())).records().add(n);
        }
        return new ArrayList<>(samples.values());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"sflow-pmacct-rate1, 3, 3", "sflow-ovs-rate10, 9, 6"})
    void everyCounterMatchesSfacctd(String name, int samples, int withInterfaceCounters)
            throws Exception {
        String capture = name.equals("sflow-pmacct-rate1") ? name + ".pcap.gz" : name + ".pcap";
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        List<InterfaceCounters> ours = new ArrayList<>();
        long counterSamples = 0;
        long unknownRecords = 0;
        for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(capture)) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), cache);
            ours.addAll(r.sflow().counters());
            counterSamples += r.sflow().counterSamples();
            unknownRecords += r.sflow().unknownRecords();
        }
        List<Logged> logged = golden(name);
        assertThat(counterSamples).isEqualTo(samples).isEqualTo(logged.size());
        assertThat(ours).hasSize(withInterfaceCounters);
        long loggedRecords = 0;
        List<Logged> interfaceSamples = new ArrayList<>();
        for (Logged s : logged) {
            loggedRecords += s.records().size();
            if (s.records().stream().anyMatch(n -> n.has("sf_cnt_type"))) {
                interfaceSamples.add(s);
            }
        }
        long ourRecords = unknownRecords;
        for (InterfaceCounters c : ours) {
            ourRecords += (c.generic() != null ? 1 : 0) + (c.ethernet() != null ? 1 : 0);
        }
        assertThat(ourRecords).as("counter records, known and skipped").isEqualTo(loggedRecords);
        assertThat(interfaceSamples).hasSameSizeAs(ours);
        for (int i = 0; i < ours.size(); i++) {
            InterfaceCounters c = ours.get(i);
            Logged s = interfaceSamples.get(i);
            String at = name + " counter sample " + s.key();
            JsonNode first = s.records().get(0);
            assertThat(c.agentAddress())
                    .as(at)
                    .isEqualTo(IpAddress.parse(first.get("peer_ip_src").asText()));
            assertThat(c.datagramSequence()).as(at).isEqualTo(first.get("sflow_seq").asLong());
            assertThat(c.sourceIdIndex()).as(at).isEqualTo(first.get("source_id_index").asLong());
            assertThat(c.sampleSequence()).as(at).isEqualTo(first.get("sflow_cnt_seq").asLong());
            JsonNode generic = null;
            JsonNode ethernet = null;
            for (JsonNode n : s.records()) {
                String type = n.path("sf_cnt_type").asText();
                if (type.equals("sflow_cnt_generic")) {
                    generic = n;
                } else if (type.equals("sflow_cnt_ethernet")) {
                    ethernet = n;
                }
            }
            assertThat(c.generic() != null).as(at).isEqualTo(generic != null);
            assertThat(c.ethernet() != null).as(at).isEqualTo(ethernet != null);
            if (generic != null) {
                GenericInterfaceCounters g = c.generic();
                long[] values = {
                    g.ifIndex(),
                    g.ifType(),
                    g.ifSpeed(),
                    g.ifDirection(),
                    g.ifStatus(),
                    g.ifInOctets(),
                    g.ifInUcastPkts(),
                    g.ifInMulticastPkts(),
                    g.ifInBroadcastPkts(),
                    g.ifInDiscards(),
                    g.ifInErrors(),
                    g.ifInUnknownProtos(),
                    g.ifOutOctets(),
                    g.ifOutUcastPkts(),
                    g.ifOutMulticastPkts(),
                    g.ifOutBroadcastPkts(),
                    g.ifOutDiscards(),
                    g.ifOutErrors(),
                    g.ifPromiscuousMode()
                };
                for (int k = 0; k < GENERIC.length; k++) {
                    assertThat(values[k])
                            .as(at + " " + GENERIC[k])
                            .isEqualTo(generic.get(GENERIC[k]).asLong());
                }
                assertThat(c.ifIndex()).isEqualTo(g.ifIndex());
            }
            if (ethernet != null) {
                EthernetInterfaceCounters e = c.ethernet();
                long[] values = {
                    e.dot3StatsAlignmentErrors(), e.dot3StatsFCSErrors(),
                    e.dot3StatsSingleCollisionFrames(), e.dot3StatsMultipleCollisionFrames(),
                    e.dot3StatsSQETestErrors(), e.dot3StatsDeferredTransmissions(),
                    e.dot3StatsLateCollisions(), e.dot3StatsExcessiveCollisions(),
                    e.dot3StatsInternalMacTransmitErrors(), e.dot3StatsCarrierSenseErrors(),
                    e.dot3StatsFrameTooLongs(), e.dot3StatsInternalMacReceiveErrors(),
                    e.dot3StatsSymbolErrors()
                };
                for (int k = 0; k < ETHERNET.length; k++) {
                    assertThat(values[k])
                            .as(at + " " + ETHERNET[k])
                            .isEqualTo(ethernet.get(ETHERNET[k]).asLong());
                }
            }
        }
    }

    @Test
    void lastCountersAreExact() throws Exception {
        // shared/testdata/README.md: the last generic counters of each interface are the trace's.
        Map<String, GenericInterfaceCounters> last = new LinkedHashMap<>();
        for (String capture :
                new String[] {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"}) {
            NetflowDecoder decoder = new NetflowDecoder();
            for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(capture)) {
                for (InterfaceCounters c :
                        decoder.decode(d.buffer(), d.context(), new InMemoryTemplateCache())
                                .sflow()
                                .counters()) {
                    if (c.generic() != null) {
                        last.put(c.agentAddress() + " if " + c.ifIndex(), c.generic());
                    }
                }
            }
        }
        assertThat(last).containsOnlyKeys("192.0.2.1 if 3", "192.0.2.2 if 1", "192.0.2.2 if 2");
        GenericInterfaceCounters pmacct = last.get("192.0.2.1 if 3");
        assertThat(pmacct.ifInUcastPkts()).isEqualTo(42_173L);
        assertThat(pmacct.ifInOctets()).isEqualTo(31_634_739L);
        assertThat(pmacct.ifSpeed()).isEqualTo(1_000_000_000L);
        GenericInterfaceCounters ovsIn = last.get("192.0.2.2 if 1");
        assertThat(ovsIn.ifInUcastPkts()).isEqualTo(42_173L);
        assertThat(ovsIn.ifInOctets()).isEqualTo(31_634_739L);
        GenericInterfaceCounters ovsOut = last.get("192.0.2.2 if 2");
        assertThat(ovsOut.ifOutUcastPkts()).isEqualTo(42_173L);
        assertThat(ovsOut.ifOutOctets()).isEqualTo(31_634_739L);
    }
}
