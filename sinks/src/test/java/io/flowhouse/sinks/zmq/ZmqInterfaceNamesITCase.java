// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * Interface names to ntopng: flows published with their context, read by a real JeroMQ subscriber
 * and handed to {@link NtopngSnmpMappings} (ntopng's own path for the {@code snmp-ifaces} topic).
 * ntopng then holds, per exporter, exactly the named interfaces of the flows, renamed ones with the
 * new name; the bounds (interfaces per exporter, exporters, message size) are kept and counted; the
 * flows carry the context's AS numbers.
 */
class ZmqInterfaceNamesITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final IpAddress A = IpAddress.parse("192.0.2.1");
    private static final IpAddress B = IpAddress.parse("2001:db8::1");
    private static final IpAddress C = IpAddress.parse("192.0.2.3");
    private static final int UNNAMED = 9;
    private static final int MAX_PER_EXPORTER = 30;
    private static final int MAX_BYTES = 1024;
    private static final long SRC_AS = 64_500;
    private static final long DST_AS = 15_169;

    private static String longName() {
        return "a" + "ü".repeat(100);
    }

    private static InterfaceContext iface(IpAddress exporter, long ifIndex, boolean renamed) {
        if (ifIndex == UNNAMED) {
            return InterfaceContext.UNKNOWN;
        }
        String name;
        String description;
        if (exporter.equals(A)) {
            name = ifIndex == 4 ? longName() : "a-ge-0/0/" + ifIndex;
            if (renamed && ifIndex == 2) {
                name = "a-renamed-2";
            }
            description = "uplink " + ifIndex + " grün";
        } else {
            name = (exporter.equals(B) ? "b-xe-" : "c-") + ifIndex;
            description = "d".repeat(100);
        }
        return new InterfaceContext(name, description, 10_000, Boundary.EXTERNAL, "", "");
    }

    private static Object[] flow(IpAddress exporter, int i, long in, long out, boolean renamed) {
        long now = System.currentTimeMillis();
        FlowRecord f =
                FlowRecord.builder()
                        .version(10)
                        .exporterAddress(exporter)
                        .ipVersion(4)
                        .srcAddr(IpAddress.ofIpv4(0x0a00_0000 + i))
                        .dstAddr(IpAddress.ofIpv4(0x0a01_0000 + i))
                        .srcPort(1024 + i % 60_000)
                        .dstPort(443)
                        .protocol(6)
                        .bytes(1000 + i)
                        .packets(1 + i % 10)
                        .flowStartMillis(now - 1000)
                        .flowEndMillis(now)
                        .inputInterface(in)
                        .outputInterface(out)
                        .build();
        FlowContext c =
                new FlowContext(
                        Attributes.NONE,
                        iface(exporter, in, renamed),
                        iface(exporter, out, renamed),
                        "",
                        "",
                        SRC_AS,
                        DST_AS,
                        Attributes.NONE,
                        Attributes.NONE);
        return new Object[] {f, c};
    }

    /**
     * A: ifIndex 1..5 and unnamed 9; B: 1..40, 9 unnamed (past the bound of 30); C: one too many.
     */
    private static List<Object[]> flows(boolean renamed) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long in = 1 + i % 5;
            out.add(flow(A, i, in, i % 7 == 0 ? UNNAMED : 1 + (i / 5) % 5, renamed));
        }
        if (!renamed) {
            for (int i = 0; i < 200; i++) {
                long in = 1 + i % 40;
                out.add(flow(B, i, in, in, false));
            }
            for (int i = 0; i < 3; i++) {
                out.add(flow(C, i, 1, 1, false));
            }
        }
        return out;
    }

    @Test
    void ntopngHoldsTheNamesOfTheFlowsPerExporter() throws Exception {
        ZmqSinkOptions options =
                ZmqPublisherITCase.bindOptions()
                        .sourceId(7)
                        .maxMessageBytes(MAX_BYTES)
                        .interfacesInterval(Duration.ofSeconds(1))
                        .interfacesMaxPerExporter(MAX_PER_EXPORTER)
                        .interfacesMaxExporters(2)
                        .build();
        List<Object[]> first = flows(false);
        List<Object[]> second = flows(true);
        List<ZmqTestSubscriber.Message> got;
        ZmqPublisher.Metrics m;
        ZmqPublisher pub = new ZmqPublisher(options, options.sourceId());
        try (ZmqTestSubscriber sub =
                ZmqTestSubscriber.connect("tcp://127.0.0.1:" + pub.boundPort())) {
            for (Object[] f : first) {
                assertThat(pub.publish((FlowRecord) f[0], (FlowContext) f[1])).isTrue();
            }
            pub.flush(TIMEOUT);
            // The names of the first flows reach the subscriber, and the periodic repeat comes.
            sub.receiveUntil(m2 -> snmpIfaces(m2, A.toString()) >= 2, TIMEOUT);
            for (Object[] f : second) {
                assertThat(pub.publish((FlowRecord) f[0], (FlowContext) f[1])).isTrue();
            }
            pub.flush(TIMEOUT);
            sub.receiveUntil(m2 -> renamedSeen(m2), TIMEOUT);
            pub.close();
            m = pub.metrics();
            got = sub.receiveFor(Duration.ofSeconds(1)); // and what the close sent
        } finally {
            pub.close();
        }

        NtopngSnmpMappings ntopng = new NtopngSnmpMappings();
        long expectedId = -1;
        int snmpMessages = 0;
        long cutSeen = 0;
        List<NtopngWireDecoder.TlvRecord> tlv = new ArrayList<>();
        for (ZmqTestSubscriber.Message msg : got) {
            NtopngWireDecoder.Header h = msg.header();
            assertThat(h.version()).isEqualTo(4);
            assertThat(h.sourceId()).isEqualTo(7);
            if (!h.url().equals("template")) { // the field list is one fixed message
                assertThat(msg.payload().length).isLessThanOrEqualTo(MAX_BYTES);
            }
            if (expectedId >= 0) {
                assertThat(h.msgId()).as("msg_id continuity over all topics").isEqualTo(expectedId);
            }
            expectedId = h.msgId() + 1;
            if (h.url().equals("snmp-ifaces")) {
                assertThat(h.flags()).as("JSON, not TLV").isZero();
                snmpMessages++;
                JsonNode j = JSON.readTree(new String(msg.payload(), StandardCharsets.UTF_8));
                assertThat(j.size()).as("one exporter per message").isEqualTo(1);
                if (j.has(B.toString())) {
                    cutSeen += MAX_PER_EXPORTER - j.get(B.toString()).size();
                }
            } else if (h.url().equals("flow")) {
                tlv.addAll(NtopngWireDecoder.tlv(msg.payload()));
            }
            ntopng.receive(h.url(), msg.payload());
        }
        assertThat(ntopng.unparsed).isZero();
        assertThat(ntopng.dispatched).isEqualTo(snmpMessages);
        assertThat(m.interfaceMessagesSent()).isEqualTo(snmpMessages);

        // A: every named interface, the renamed one with its new name, the long one cut at 128
        // UTF-8 bytes at a character boundary; never the unnamed one.
        Map<Long, String> wantA = new TreeMap<>();
        for (long i = 1; i <= 5; i++) {
            wantA.put(i, iface(A, i, true).name());
        }
        wantA.put(4L, "a" + "ü".repeat(63));
        assertThat(ntopng.names(A.toString())).isEqualTo(wantA);
        assertThat(ntopng.ifaceName(A.toString(), 2)).isEqualTo("a-renamed-2");
        assertThat(ntopng.ifaceName(A.toString(), UNNAMED)).isNull();
        JsonNode a1 = JSON.readTree(ntopng.redis.get("cachedexporters." + A + ".ifnames")).get("1");
        assertThat(a1.get("description").asText()).isEqualTo("uplink 1 grün");
        assertThat(a1.get("speed_mbps").asLong()).isEqualTo(10_000);

        // B: 30 kept (39 named seen: 1..8, 10..31), the message holds what fits in 1 KiB, in
        // ifIndex order.
        Map<Long, String> namesB = ntopng.names(B.toString());
        assertThat(namesB).isNotEmpty().hasSizeLessThan(MAX_PER_EXPORTER);
        Map<Long, String> wantB = new TreeMap<>();
        for (long i = 1; wantB.size() < namesB.size(); i++) {
            if (i != UNNAMED) {
                wantB.put(i, "b-xe-" + i);
            }
        }
        assertThat(namesB).isEqualTo(wantB);
        assertThat(m.interfacesCut()).isEqualTo(cutSeen).isPositive();

        // C: one exporter past the bound of 2. Refused: B's flows on 32..40 and C's three.
        assertThat(ntopng.redis).doesNotContainKey("cachedexporters." + C + ".ifnames");
        assertThat(ntopng.redis).hasSize(2);
        assertThat(m.interfacesRefused()).isEqualTo(5 * 9 + 3);

        // Every flow carries the context's AS numbers (nProbe SRC_AS 16, DST_AS 17).
        assertThat(tlv).hasSize(first.size() + second.size());
        assertThat(tlv).allSatisfy(r -> assertThat(r.uint(16)).isEqualTo(SRC_AS));
        assertThat(tlv).allSatisfy(r -> assertThat(r.uint(17)).isEqualTo(DST_AS));
    }

    private static int snmpIfaces(List<ZmqTestSubscriber.Message> got, String exporter) {
        int n = 0;
        for (ZmqTestSubscriber.Message m : got) {
            if (m.header().url().equals("snmp-ifaces")
                    && new String(m.payload(), StandardCharsets.UTF_8)
                            .startsWith("{\"" + exporter + "\"")) {
                n++;
            }
        }
        return n;
    }

    private static boolean renamedSeen(List<ZmqTestSubscriber.Message> got) {
        for (ZmqTestSubscriber.Message m : got) {
            if (m.header().url().equals("snmp-ifaces")
                    && new String(m.payload(), StandardCharsets.UTF_8).contains("a-renamed-2")) {
                return true;
            }
        }
        return false;
    }
}
