// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.io.IOException;
import java.net.InetAddress;
import org.snmp4j.CommandResponder;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.MessageException;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.StatusInformation;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * An SNMP v2c agent that no real device should be, built on SNMP4J's own responder: a sysName and
 * interface strings far longer than any bound, and an interface table that never ends (ENDLESS) or
 * that answers the same row again and again (LOOP). What a compromised or broken agent can send.
 */
final class HostileAgent implements AutoCloseable {

    enum Mode {
        ENDLESS,
        LOOP
    }

    static final int STRING_BYTES = 300;

    private final Snmp snmp;
    final int port;

    private HostileAgent(Snmp snmp, int port) {
        this.snmp = snmp;
        this.port = port;
    }

    static HostileAgent start(Mode mode) throws IOException {
        DefaultUdpTransportMapping transport =
                new DefaultUdpTransportMapping(new UdpAddress(InetAddress.getLoopbackAddress(), 0));
        Snmp snmp = new Snmp(transport);
        snmp.addCommandResponder(new Responder(mode));
        snmp.listen();
        return new HostileAgent(snmp, transport.getListenAddress().getPort());
    }

    @Override
    public void close() throws IOException {
        snmp.close();
    }

    private static final class Responder implements CommandResponder {
        private final Mode mode;

        Responder(Mode mode) {
            this.mode = mode;
        }

        @Override
        public <A extends org.snmp4j.smi.Address> void processPdu(CommandResponderEvent<A> event) {
            PDU request = event.getPDU();
            if (request == null) {
                return;
            }
            PDU response = new PDU();
            response.setType(PDU.RESPONSE);
            response.setRequestID(request.getRequestID());
            if (request.getType() == PDU.GETBULK) {
                int repetitions = Math.max(1, request.getMaxRepetitions());
                for (int r = 0; r < repetitions; r++) {
                    for (VariableBinding vb : request.getVariableBindings()) {
                        response.add(next(vb.getOid(), r));
                    }
                }
            } else {
                for (VariableBinding vb : request.getVariableBindings()) {
                    response.add(new VariableBinding(vb.getOid(), text('s')));
                }
            }
            try {
                event.getMessageDispatcher()
                        .returnResponsePdu(
                                event.getMessageProcessingModel(),
                                event.getSecurityModel(),
                                event.getSecurityName(),
                                event.getSecurityLevel(),
                                response,
                                event.getMaxSizeResponsePDU(),
                                event.getStateReference(),
                                new StatusInformation());
            } catch (MessageException e) {
                throw new IllegalStateException(e);
            }
            event.setProcessed(true);
        }

        /** The row after {@code oid}'s (ENDLESS: every index exists), or the same one (LOOP). */
        private VariableBinding next(OID oid, int repetition) {
            OID column = columnOf(oid);
            long index = oid.size() > column.size() ? oid.getUnsigned(oid.size() - 1) : 0;
            long row = mode == Mode.LOOP ? 1 : index + 1 + repetition;
            OID next = new OID(column).append((int) row);
            if (column.equals(ExporterPoll.IF_HIGH_SPEED)) {
                return new VariableBinding(next, new Gauge32(100_000));
            }
            return new VariableBinding(next, text('i'));
        }

        private static OID columnOf(OID oid) {
            for (OID c :
                    new OID[] {
                        ExporterPoll.IF_DESCR,
                        ExporterPoll.IF_NAME,
                        ExporterPoll.IF_HIGH_SPEED,
                        ExporterPoll.IF_ALIAS
                    }) {
                if (oid.startsWith(c)) {
                    return c;
                }
            }
            return oid;
        }

        private static OctetString text(char c) {
            return new OctetString(String.valueOf(c).repeat(STRING_BYTES));
        }
    }
}
