// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.enrich.InterfaceInfo;
import java.io.IOException;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.Target;
import org.snmp4j.event.ResponseEvent;
import org.snmp4j.event.ResponseListener;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.util.DefaultPDUFactory;
import org.snmp4j.util.TableEvent;
import org.snmp4j.util.TableListener;
import org.snmp4j.util.TableUtils;

/**
 * One poll of one exporter, asynchronous from start to end: GET {@code sysName.0}, then a GETBULK
 * walk of {@code ifDescr}, {@code ifName}, {@code ifHighSpeed} and {@code ifAlias} by ifIndex. It
 * ends exactly once: {@link Outcome#OK}, or an error from the agent, or a timeout.
 */
final class ExporterPoll {

    enum Outcome {
        OK,
        FAILED,
        TIMED_OUT
    }

    /** Called once when the poll ends; {@code snapshot} is null unless OK. */
    interface Done {
        void done(ExporterPoll poll, Outcome outcome, ExporterSnapshot snapshot, String error);
    }

    static final OID SYS_NAME = new OID("1.3.6.1.2.1.1.5.0");
    static final OID IF_DESCR = new OID("1.3.6.1.2.1.2.2.1.2");
    static final OID IF_NAME = new OID("1.3.6.1.2.1.31.1.1.1.1");
    static final OID IF_HIGH_SPEED = new OID("1.3.6.1.2.1.31.1.1.1.15");
    static final OID IF_ALIAS = new OID("1.3.6.1.2.1.31.1.1.1.18");
    private static final OID[] COLUMNS = {IF_DESCR, IF_NAME, IF_HIGH_SPEED, IF_ALIAS};

    private final Snmp snmp;
    private final TableUtils tables;
    private final Target<?> target;
    private final SnmpOptions options;
    private final SnmpCounters counters;
    private final Done done;
    private final long startedNanos;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final SortedMap<Long, InterfaceInfo> rows = new TreeMap<>();
    private volatile String sysName = "";
    private volatile boolean cut;

    ExporterPoll(
            Snmp snmp,
            TableUtils tables,
            Target<?> target,
            SnmpOptions options,
            SnmpCounters counters,
            long startedNanos,
            Done done) {
        this.snmp = snmp;
        this.tables = tables;
        this.target = target;
        this.options = options;
        this.counters = counters;
        this.startedNanos = startedNanos;
        this.done = done;
    }

    long startedNanos() {
        return startedNanos;
    }

    void start() {
        PDU pdu = new DefaultPDUFactory(PDU.GET).createPDU(target);
        pdu.add(new VariableBinding(SYS_NAME));
        try {
            snmp.send(pdu, target, null, new SysNameListener());
        } catch (IOException | RuntimeException e) {
            end(Outcome.FAILED, null, "cannot send: " + e);
        }
    }

    /** Gives up on a poll that outlived every timeout it could have (a safety net). */
    void expire() {
        end(Outcome.TIMED_OUT, null, "no end within the poll deadline");
    }

    private void end(Outcome outcome, ExporterSnapshot snapshot, String error) {
        if (ended.compareAndSet(false, true)) {
            done.done(this, outcome, snapshot, error);
        }
    }

    private String noAnswer() {
        return "no answer after "
                + (options.retries() + 1)
                + " tries of "
                + options.timeout().toMillis()
                + " ms"
                + (target.getVersion() == org.snmp4j.mp.SnmpConstants.version2c
                        ? " (agent down or unreachable, or it ignores the community)"
                        : " (agent down or unreachable, or it refuses the v3 user or its keys)");
    }

    private final class SysNameListener implements ResponseListener {
        @Override
        public <A extends org.snmp4j.smi.Address> void onResponse(ResponseEvent<A> event) {
            // An asynchronous request must be cancelled by its listener, or SNMP4J keeps it.
            ((Snmp) event.getSource()).cancel(event.getRequest(), this);
            if (ended.get()) {
                return;
            }
            PDU response = event.getResponse();
            if (event.getError() != null) {
                end(Outcome.FAILED, null, "error: " + event.getError());
            } else if (response == null) {
                end(Outcome.TIMED_OUT, null, noAnswer());
            } else if (response.getType() == PDU.REPORT) {
                end(Outcome.FAILED, null, "report " + report(response));
            } else if (response.getErrorStatus() != PDU.noError) {
                end(Outcome.FAILED, null, "error status " + response.getErrorStatusText());
            } else {
                if (response.size() > 0) {
                    sysName =
                            SnmpText.text(
                                    response.get(0).getVariable(),
                                    options.maxStringChars(),
                                    counters);
                }
                tables.getTable(target, COLUMNS, new Walk(), null, null, null);
            }
        }
    }

    private final class Walk implements TableListener {
        @Override
        public boolean next(TableEvent event) {
            if (ended.get()) {
                return false;
            }
            VariableBinding[] columns = event.getColumns();
            if (event.getIndex() == null || event.getIndex().size() != 1 || columns == null) {
                return true;
            }
            synchronized (rows) {
                if (rows.size() >= options.maxInterfaces()) {
                    cut = true;
                    finishOk();
                    return false;
                }
                long ifIndex = event.getIndex().getUnsigned(0);
                int max = options.maxStringChars();
                String descr = column(columns, 0) == null ? "" : text(columns[0], max);
                String name = column(columns, 1) == null ? "" : text(columns[1], max);
                long speed =
                        column(columns, 2) == null ? 0 : SnmpText.number(columns[2].getVariable());
                String alias = column(columns, 3) == null ? "" : text(columns[3], max);
                rows.put(ifIndex, new InterfaceInfo(name, alias.isEmpty() ? descr : alias, speed));
            }
            return true;
        }

        @Override
        public void finished(TableEvent event) {
            if (!event.isError()) {
                finishOk();
                return;
            }
            switch (event.getStatus()) {
                case TableEvent.STATUS_TIMEOUT:
                    end(Outcome.TIMED_OUT, null, "walk: " + noAnswer());
                    break;
                case TableEvent.STATUS_REPORT:
                    end(Outcome.FAILED, null, "walk: report " + report(event.getReportPDU()));
                    break;
                case TableEvent.STATUS_WRONG_ORDER:
                    end(Outcome.FAILED, null, "walk: the agent answered out of order");
                    break;
                default:
                    end(Outcome.FAILED, null, "walk: " + event.getErrorMessage());
            }
        }

        @Override
        public boolean isFinished() {
            return ended.get();
        }

        private VariableBinding column(VariableBinding[] columns, int i) {
            return i < columns.length ? columns[i] : null;
        }

        private String text(VariableBinding vb, int max) {
            return SnmpText.text(vb.getVariable(), max, counters);
        }
    }

    private void finishOk() {
        ExporterSnapshot snapshot;
        synchronized (rows) {
            snapshot = new ExporterSnapshot(sysName, rows);
        }
        if (ended.get()) {
            return;
        }
        if (cut) {
            counters.tablesCut.incrementAndGet();
        }
        end(Outcome.OK, snapshot, null);
    }

    private static String report(PDU report) {
        if (report == null || report.size() == 0) {
            return "(empty)";
        }
        // usmStatsUnknownUserNames, usmStatsWrongDigests, ...: the OID says which.
        VariableBinding vb = report.get(0);
        return vb.getOid() + " = " + vb.getVariable();
    }
}
