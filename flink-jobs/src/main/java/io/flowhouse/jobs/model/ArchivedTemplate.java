// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;

/**
 * One entry of the compacted templates topic: a template or the options data of one template scope,
 * as the decode step learned it. Read back at job start so that a replay from any offset can decode
 * data whose template was sent before that offset.
 *
 * @param exporterAddress exporter address
 * @param exporterPort exporter UDP port; 0 when the job scoped templates by address only
 * @param version 9 or 10
 * @param observationDomainId observation domain / source id (uint32)
 * @param templateId template id, or {@link #OPTIONS_DATA} for the scope's options data
 * @param wire {@code TemplateWire} bytes of the template or options data
 * @param learnedMillis receive time of the datagram that first carried it
 */
public record ArchivedTemplate(
        IpAddress exporterAddress,
        int exporterPort,
        int version,
        long observationDomainId,
        int templateId,
        byte[] wire,
        long learnedMillis) {

    /** The {@link #templateId()} of an options data entry. */
    public static final int OPTIONS_DATA = -1;

    public boolean isOptionsData() {
        return templateId == OPTIONS_DATA;
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
                + "]";
    }
}
