// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.flow;

import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.OptionsEditor;
import io.flowhouse.codec.template.OptionsLimits;

/**
 * Per-message facts a data record needs to become a {@link FlowRecord}: header fields, exporter,
 * receive time and the scope's options data. Mutable and reused across messages by one decoder; not
 * thread-safe.
 */
public final class RecordContext {

    int version;
    IpAddress exporterAddress = IpAddress.UNSPECIFIED;
    int exporterPort;
    long observationDomainId;
    long sequenceNumber;
    long exportTimeMillis;
    long receivedMillis;
    long streamId;
    long streamSequence;
    // The header the message's records share, made on the first record (reset and stream clear it).
    private DatagramHeader header;
    long sysUptimeMillis = -1L;
    // The scope's options data as this message has changed it so far.
    final OptionsEditor options = new OptionsEditor();
    long defaultRate = 1L;
    int timeBaseMissing;
    // The options data defaultRate was last computed for (options rarely change between messages).
    private OptionsData rateOf = OptionsData.EMPTY;
    private long rateOfRate = 1L;

    /**
     * Sets the facts for the next message.
     *
     * @param sysUptimeMillis the v9 header sysUpTime (uint32 ms), or -1 for IPFIX
     */
    public void reset(
            int version,
            IpAddress exporterAddress,
            int exporterPort,
            long observationDomainId,
            long sequenceNumber,
            long exportTimeMillis,
            long receivedMillis,
            long sysUptimeMillis) {
        this.version = version;
        this.exporterAddress = exporterAddress;
        this.exporterPort = exporterPort;
        this.observationDomainId = observationDomainId;
        this.sequenceNumber = sequenceNumber;
        this.exportTimeMillis = exportTimeMillis;
        this.receivedMillis = receivedMillis;
        this.sysUptimeMillis = sysUptimeMillis;
        this.options.reset(OptionsData.EMPTY, OptionsLimits.defaults());
        this.defaultRate = 1L;
        this.timeBaseMissing = 0;
        this.streamId = 0L;
        this.streamSequence = 0L;
        this.header = null;
    }

    /** What every record of the message shares: one instance per message. */
    DatagramHeader header() {
        DatagramHeader h = header;
        if (h == null) {
            h =
                    new DatagramHeader(
                            version,
                            exporterAddress,
                            exporterPort,
                            observationDomainId,
                            sequenceNumber,
                            exportTimeMillis,
                            receivedMillis,
                            streamId,
                            streamSequence);
            header = h;
        }
        return h;
    }

    /** Sets the agent stream of the message (after {@link #reset}), copied into every record. */
    public void stream(long id, long sequence) {
        this.streamId = id;
        this.streamSequence = sequence;
        this.header = null;
    }

    /** Starts the message with its scope's options data, to be edited under {@code limits}. */
    public void options(OptionsData options, OptionsLimits limits) {
        this.options.reset(options, limits);
        if (options != rateOf) {
            long r = options.samplingRate(OptionsData.ANY_SAMPLER);
            rateOf = options;
            rateOfRate = r > 0 ? r : 1L;
        }
        this.defaultRate = rateOfRate;
    }

    /** The message's options data; options data records change it through this. */
    public OptionsEditor options() {
        return options;
    }

    /** To be called after options records changed {@link #options()}: later records see them. */
    public void optionsChanged() {
        long r = options.samplingRate(OptionsData.ANY_SAMPLER);
        rateOf = null;
        defaultRate = r > 0 ? r : 1L;
    }

    /** Records whose sysUpTime-relative times could not be placed (no systemInitTime). */
    public int timeBaseMissing() {
        return timeBaseMissing;
    }

    long startMillis(long[] v, long p) {
        return time(
                v,
                p,
                FlowRecordMapper.S_START_ABS,
                FlowRecordMapper.S_START_UPTIME,
                FlowRecordMapper.S_START_DELTA_US);
    }

    long endMillis(long[] v, long p) {
        return time(
                v,
                p,
                FlowRecordMapper.S_END_ABS,
                FlowRecordMapper.S_END_UPTIME,
                FlowRecordMapper.S_END_DELTA_US);
    }

    private long time(long[] v, long p, int abs, int uptime, int deltaMicros) {
        if ((p & (1L << abs)) != 0) {
            return v[abs];
        }
        if ((p & (1L << uptime)) != 0) {
            return fromUptime(v, p, v[uptime]);
        }
        if ((p & (1L << deltaMicros)) != 0) {
            return exportTimeMillis - v[deltaMicros] / 1000L;
        }
        return Long.MIN_VALUE;
    }

    /**
     * A sysUpTime-relative time (uint32 ms) to epoch ms. v9: the header's uptime and export time
     * give the boot time; the 32-bit difference is signed, so an uptime that wrapped (about 49.7
     * days) still lands right. IPFIX: {@code systemInitTimeMilliseconds} from the record or the
     * scope's options data.
     */
    private long fromUptime(long[] v, long p, long uptime) {
        if (sysUptimeMillis >= 0) {
            int ago = (int) (sysUptimeMillis - uptime);
            return exportTimeMillis - ago;
        }
        long init =
                (p & FlowRecordMapper.B_SYSTEM_INIT_TIME) != 0
                        ? v[FlowRecordMapper.S_SYSTEM_INIT_TIME]
                        : options.systemInitTimeMillis();
        if (init == OptionsData.UNKNOWN) {
            timeBaseMissing++;
            return Long.MIN_VALUE;
        }
        return init + uptime;
    }

    long samplingRate(long[] v, long p) {
        return FlowRecordMapper.samplingRate(v, p, this);
    }
}
