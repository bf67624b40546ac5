// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * One entry of the compacted templates topic: a template or the options data of one template scope,
 * as the decode step learned it, or the end of a template (withdrawn or expired) with the layout it
 * had. Read back at job start so that a replay from any offset can decode data whose template was
 * sent before that offset, and never decodes data received after the template ended.
 *
 * @param exporterAddress exporter address
 * @param exporterPort exporter UDP port; 0 when the job scoped templates by address only
 * @param version 9 or 10
 * @param observationDomainId observation domain / source id (uint32)
 * @param templateId template id, or {@link #OPTIONS_DATA} for the scope's options data
 * @param wire {@code TemplateWire} bytes of the template or options data
 * @param learnedMillis receive time of the datagram that first carried it
 * @param lastSeenMillis receive time of its latest re-send the archive was told of; {@code
 *     Long.MAX_VALUE} when unknown (entries written before the archive knew it)
 * @param endedMillis receive time it was withdrawn or expired at; {@code Long.MAX_VALUE} while live
 * @param end whether and how it ended
 */
public record ArchivedTemplate(
        IpAddress exporterAddress,
        int exporterPort,
        int version,
        long observationDomainId,
        int templateId,
        byte[] wire,
        long learnedMillis,
        long lastSeenMillis,
        long endedMillis,
        End end) {

    /** The {@link #templateId()} of an options data entry. */
    public static final int OPTIONS_DATA = -1;

    /** Whether the template is live or how it ended; the byte is its wire form. */
    public enum End {
        LIVE(0),
        WITHDRAWN(1),
        EXPIRED(2);

        private final int code;

        End(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static End of(int code) {
            for (End e : values()) {
                if (e.code == code) {
                    return e;
                }
            }
            throw new IllegalArgumentException("template end " + code + " (expected: 0..2)");
        }
    }

    public ArchivedTemplate {
        Objects.requireNonNull(end, "end");
        if ((end == End.LIVE) != (endedMillis == Long.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "template end " + end + " at " + endedMillis + " (expected: LIVE iff none)");
        }
    }

    /** A live entry whose last re-send is unknown. */
    public ArchivedTemplate(
            IpAddress exporterAddress,
            int exporterPort,
            int version,
            long observationDomainId,
            int templateId,
            byte[] wire,
            long learnedMillis) {
        this(
                exporterAddress,
                exporterPort,
                version,
                observationDomainId,
                templateId,
                wire,
                learnedMillis,
                Long.MAX_VALUE,
                Long.MAX_VALUE,
                End.LIVE);
    }

    public boolean isOptionsData() {
        return templateId == OPTIONS_DATA;
    }

    /** Whether this entry says the template ended (a tombstone that keeps its layout). */
    public boolean ended() {
        return end != End.LIVE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArchivedTemplate a
                && exporterAddress.equals(a.exporterAddress)
                && exporterPort == a.exporterPort
                && version == a.version
                && observationDomainId == a.observationDomainId
                && templateId == a.templateId
                && learnedMillis == a.learnedMillis
                && lastSeenMillis == a.lastSeenMillis
                && endedMillis == a.endedMillis
                && end == a.end
                && Arrays.equals(wire, a.wire);
    }

    @Override
    public int hashCode() {
        int h = exporterAddress.hashCode();
        h = 31 * h + exporterPort;
        h = 31 * h + version;
        h = 31 * h + Long.hashCode(observationDomainId);
        h = 31 * h + templateId;
        h = 31 * h + Long.hashCode(learnedMillis);
        h = 31 * h + Long.hashCode(lastSeenMillis);
        h = 31 * h + Long.hashCode(endedMillis);
        h = 31 * h + end.hashCode();
        return 31 * h + Arrays.hashCode(wire);
    }

    @Override
    public String toString() {
        return "ArchivedTemplate["
                + exporterAddress
                + ":"
                + exporterPort
                + " v"
                + version
                + " domain "
                + observationDomainId
                + (isOptionsData() ? " options" : " template " + templateId)
                + ", learned "
                + learnedMillis
                + (lastSeenMillis == Long.MAX_VALUE ? "" : ", seen " + lastSeenMillis)
                + (ended() ? ", " + end + " " + endedMillis : "")
                + "]";
    }
}
