// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.OptionsData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interface names of the captures' options data records, as the decoder learns them, against
 * tshark's decode of the same records: for every options record tshark shows, the scope's options
 * data holds that name under that record's ifIndex, or under {@link OptionsData#OBSERVED_INTERFACE}
 * when its scope has none (softflowd's IPFIX scope is {@code meteringProcessId}).
 */
class OptionsInterfaceNamesITCase {

    @BeforeAll
    static void tsharkInstalled() {
        ExternalTool.require("tshark", "-v");
    }

    /** One options record as tshark decodes it: its scope's ifIndex (or none) and its strings. */
    private record TsharkOptions(Long ifIndex, String name, String description) {

        long key() {
            return ifIndex == null ? OptionsData.OBSERVED_INTERFACE : ifIndex;
        }
    }

    private static String text(JsonNode n, String field) {
        return TsharkCflow.text(n, field);
    }

    private static List<List<JsonNode>> tsharkRecords(String file) throws Exception {
        return TsharkCflow.records(CaptureDatagrams.testdata(file));
    }

    private static List<TsharkOptions> options(List<JsonNode> records) {
        List<TsharkOptions> out = new ArrayList<>();
        for (JsonNode r : records) {
            String name = text(r, "cflow.if_name");
            String description = text(r, "cflow.if_descr");
            if (name == null && description == null) {
                continue;
            }
            // v9 names the scope "Interface"; IPFIX scopes by ingressInterface when it has one.
            String ifIndex =
                    text(r, "cflow.scope_interface") != null
                            ? text(r, "cflow.scope_interface")
                            : text(r, "cflow.inputint");
            out.add(
                    new TsharkOptions(
                            ifIndex == null ? null : Long.parseLong(ifIndex), name, description));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ipfix-softflowd.pcap",
                "ipfix-biflow-softflowd.pcap",
                "netflow-v9-softflowd.pcap"
            })
    void everyOptionsRecordNamesWhatTsharkDecodes(String file) throws Exception {
        List<List<JsonNode>> frames = tsharkRecords(file);
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
        assertThat(frames).hasSameSizeAs(ds);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        int compared = 0;
        for (int i = 0; i < ds.size(); i++) {
            DecodeResult r = decoder.decode(ds.get(i).buffer(), ds.get(i).context(), cache);
            List<TsharkOptions> theirs = options(frames.get(i));
            if (theirs.isEmpty()) {
                continue;
            }
            OptionsData ours = cache.options(r.scope());
            for (TsharkOptions t : theirs) {
                String where = file + " frame " + (i + 1) + " ifIndex " + t.ifIndex();
                if (t.name() != null) {
                    assertThat(ours.interfaceNames().get(t.key()))
                            .as(where + " name")
                            .isEqualTo(t.name());
                }
                if (t.description() != null) {
                    assertThat(ours.interfaceDescriptions().get(t.key()))
                            .as(where + " description")
                            .isEqualTo(t.description());
                }
                compared++;
            }
        }
        assertThat(compared).as(file + " options records with names").isPositive();
    }

    /**
     * softflowd names in its IPFIX options (scope {@code meteringProcessId}) the one interface it
     * observes, and stamps that interface's index on every flow as ingress and egress; its NetFlow
     * v9 export of the same trace names the same interface under that very ifIndex (scope
     * "Interface"). So the flows' ifIndex as tshark decodes it, named by the v9 capture, is what
     * {@link OptionsData#OBSERVED_INTERFACE} stands for in the IPFIX one.
     */
    @Test
    void theObservedInterfaceIsTheOneTheFlowsCarry() throws Exception {
        List<Long> flowIfIndexes = new ArrayList<>();
        for (List<JsonNode> frame : tsharkRecords("ipfix-softflowd.pcap")) {
            for (JsonNode f : frame) {
                if (text(f, "cflow.inputint") != null && text(f, "cflow.if_name") == null) {
                    flowIfIndexes.add(Long.parseLong(text(f, "cflow.inputint")));
                    flowIfIndexes.add(Long.parseLong(text(f, "cflow.outputint")));
                }
            }
        }
        assertThat(flowIfIndexes).isNotEmpty().containsOnly(0L);

        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache ipfix = new InMemoryTemplateCache();
        List<FlowRecord> flows = new ArrayList<>();
        OptionsData ipfixOptions = OptionsData.EMPTY;
        for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams("ipfix-softflowd.pcap")) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), ipfix);
            flows.addAll(r.records());
            ipfixOptions = r.scope() == null ? ipfixOptions : ipfix.options(r.scope());
        }
        assertThat(flows)
                .isNotEmpty()
                .allSatisfy(
                        f -> {
                            assertThat(f.inputInterface()).isZero();
                            assertThat(f.outputInterface()).isZero();
                        });
        InMemoryTemplateCache v9 = new InMemoryTemplateCache();
        OptionsData v9Options = OptionsData.EMPTY;
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("netflow-v9-softflowd.pcap")) {
            DecodeResult r = decoder.decode(d.buffer(), d.context(), v9);
            v9Options = r.scope() == null ? v9Options : v9.options(r.scope());
        }
        assertThat(ipfixOptions.interfaceNames()).containsOnlyKeys(OptionsData.OBSERVED_INTERFACE);
        assertThat(v9Options.interfaceNames()).containsOnlyKeys(0L);
        assertThat(ipfixOptions.interfaceNames().get(OptionsData.OBSERVED_INTERFACE))
                .isEqualTo(v9Options.interfaceNames().get(0L));
    }
}
