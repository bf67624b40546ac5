// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import com.google.protobuf.ByteString;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.schema.v1.Flow;

/**
 * {@link FlowRecord} to the published {@code flowhouse.v1.Flow}: field for field what the {@code
 * flows} table gets, addresses as 16 bytes (IPv4 mapped) like its IPv6 columns, and an sFlow
 * sample's own facts ({@link SflowFields}) in the {@code sflow_} fields, and with a {@link
 * FlowContext} the table's context columns (and its AS numbers in {@code src_as}/{@code dst_as}).
 */
public final class FlowhouseFlowEncoder {

    private FlowhouseFlowEncoder() {}

    public static Flow toFlow(FlowRecord r, FlowRowIds ids) {
        return toFlow(r, ids, null);
    }

    /** The flow and its context (null: the flow alone). */
    public static Flow toFlow(FlowRecord r, FlowRowIds ids, FlowContext c) {
        Flow.Builder b =
                Flow.newBuilder()
                        .setRowId(ids.low(r))
                        .setRowIdHi(ids.high(r))
                        .setExporterAddress(address(r.exporterAddress()))
                        .setExporterPort(r.exporterPort())
                        .setObservationDomain((int) r.observationDomainId())
                        .setVersion(r.version())
                        .setSequenceNumber((int) r.sequenceNumber())
                        .setRecordIndex(r.recordIndex())
                        .setTimeReceivedMs(r.timeReceivedMillis())
                        .setFlowStartMs(r.flowStartMillis())
                        .setFlowEndMs(r.flowEndMillis())
                        .setExportTimeMs(r.exportTimeMillis())
                        .setIpVersion(r.ipVersion())
                        .setSrcAddr(address(r.srcAddr()))
                        .setDstAddr(address(r.dstAddr()))
                        .setNextHop(address(r.nextHop()))
                        .setSrcPrefixLen(r.srcPrefixLen())
                        .setDstPrefixLen(r.dstPrefixLen())
                        .setSrcPort(r.srcPort())
                        .setDstPort(r.dstPort())
                        .setProto(r.protocol())
                        .setTcpFlags(r.tcpFlags())
                        .setTos(r.tos())
                        .setBytes(r.bytes())
                        .setPackets(r.packets())
                        .setReverseBytes(r.reverseBytes())
                        .setReversePackets(r.reversePackets())
                        .setSamplingRate(r.samplingRate())
                        .setInIf((int) r.inputInterface())
                        .setOutIf((int) r.outputInterface())
                        .setSrcAs((int) r.srcAs())
                        .setDstAs((int) r.dstAs())
                        .setVlan(r.vlanId())
                        .setPostVlan(r.postVlanId())
                        .setSrcMac(r.srcMac())
                        .setDstMac(r.dstMac())
                        .setDirection(r.direction())
                        .setFlowEndReason(r.flowEndReason())
                        .setExportedFlowStartMs(r.exportedFlowStartMillis())
                        .setExportedFlowEndMs(r.exportedFlowEndMillis())
                        .setInVrfId((int) r.inputVrfId())
                        .setOutVrfId((int) r.outputVrfId());
        SflowFields x = r.sflow();
        if (x != null) {
            b.setSflowAgentAddress(address(x.agentAddress()))
                    .setSflowSubAgentId((int) x.subAgentId())
                    .setSflowDatagramSequence((int) x.datagramSequence())
                    .setSflowUptimeMs((int) x.uptimeMillis())
                    .setSflowSampleSequence((int) x.sampleSequence())
                    .setSflowSourceIdClass(x.sourceIdClass())
                    .setSflowSourceIdIndex((int) x.sourceIdIndex())
                    .setSflowSamplePool((int) x.samplePool())
                    .setSflowDrops((int) x.drops());
        }
        if (c != null) {
            context(b, c);
        }
        return b.build();
    }

    private static void context(Flow.Builder b, FlowContext c) {
        Attributes e = c.exporter();
        InterfaceContext in = c.in();
        InterfaceContext out = c.out();
        Attributes src = c.srcNetwork();
        Attributes dst = c.dstNetwork();
        b.setSrcAs((int) c.srcAs())
                .setDstAs((int) c.dstAs())
                .setExporterName(e.name())
                .setExporterRole(e.role())
                .setExporterSite(e.site())
                .setExporterRegion(e.region())
                .setExporterTenant(e.tenant())
                .setInIfName(in.name())
                .setInIfDescription(in.description())
                .setInIfSpeed(in.speedMbps())
                .setInIfBoundary(in.boundary().word())
                .setInIfProvider(in.provider())
                .setInIfConnectivity(in.connectivity())
                .setOutIfName(out.name())
                .setOutIfDescription(out.description())
                .setOutIfSpeed(out.speedMbps())
                .setOutIfBoundary(out.boundary().word())
                .setOutIfProvider(out.provider())
                .setOutIfConnectivity(out.connectivity())
                .setSrcCountry(c.srcCountry())
                .setDstCountry(c.dstCountry())
                .setSrcNetName(src.name())
                .setSrcNetRole(src.role())
                .setSrcNetSite(src.site())
                .setSrcNetRegion(src.region())
                .setSrcNetTenant(src.tenant())
                .setDstNetName(dst.name())
                .setDstNetRole(dst.role())
                .setDstNetSite(dst.site())
                .setDstNetRegion(dst.region())
                .setDstNetTenant(dst.tenant())
                .setInVrfName(c.inVrfName())
                .setOutVrfName(c.outVrfName());
    }

    public static byte[] encode(FlowRecord r, FlowRowIds ids) {
        return toFlow(r, ids).toByteArray();
    }

    private static ByteString address(IpAddress a) {
        return ByteString.copyFrom(a.toBytes16());
    }
}
