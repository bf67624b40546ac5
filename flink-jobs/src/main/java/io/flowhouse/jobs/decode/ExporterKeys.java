// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.TemplateScopeMode;
import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The Flink key of the decode step: one exporter, {@code address|port} or, with {@link
 * TemplateScopeMode#ADDRESS_ONLY}, {@code address}. Observation domains are kept apart inside the
 * key's state. Datagrams and archived templates of one exporter get the same key.
 */
public final class ExporterKeys {

    private ExporterKeys() {}

    public static String key(IpAddress address, int port, TemplateScopeMode mode) {
        return mode == TemplateScopeMode.ADDRESS_ONLY ? address.toString() : address + "|" + port;
    }

    /** The codec's exporter key for a datagram: port 0 scopes templates by address only. */
    public static ExporterKey exporter(IpAddress address, int port, TemplateScopeMode mode) {
        return new ExporterKey(address, mode == TemplateScopeMode.ADDRESS_ONLY ? 0 : port);
    }

    /** Keys datagrams by exporter. */
    public static final class OfDatagram implements KeySelector<RawDatagram, String> {
        private final TemplateScopeMode mode;

        public OfDatagram(TemplateScopeMode mode) {
            this.mode = mode;
        }

        @Override
        public String getKey(RawDatagram d) {
            return key(d.exporterAddress(), d.exporterPort(), mode);
        }
    }

    /** Keys archived templates by exporter. */
    public static final class OfArchived implements KeySelector<ArchivedTemplate, String> {
        private final TemplateScopeMode mode;

        public OfArchived(TemplateScopeMode mode) {
            this.mode = mode;
        }

        @Override
        public String getKey(ArchivedTemplate t) {
            return key(t.exporterAddress(), t.exporterPort(), mode);
        }
    }
}
