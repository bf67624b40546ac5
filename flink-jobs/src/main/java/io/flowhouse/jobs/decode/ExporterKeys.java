// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.jobs.config.TemplateScopeMode;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The Flink key of the decode and statistics steps: the {@link ExporterKey} that owns a template
 * space ({@link TemplateScopeMode#owner}), typed as {@link ExporterKeyTypeInfo}. Datagrams,
 * archived templates and observations of one exporter get the same key; observation domains are
 * kept apart inside the key's state.
 */
public final class ExporterKeys {

    private ExporterKeys() {}

    /** Keys datagrams by the owner of their exporter's template space. */
    public static final class OfDatagram implements KeySelector<RawDatagram, ExporterKey> {
        private static final long serialVersionUID = 1L;

        private final TemplateScopeMode mode;

        public OfDatagram(TemplateScopeMode mode) {
            this.mode = mode;
        }

        @Override
        public ExporterKey getKey(RawDatagram d) {
            return mode.owner(d.exporter());
        }
    }

    /** Keys archived templates (stored under their owner) the same way. */
    public static final class OfArchived implements KeySelector<ArchivedTemplate, ExporterKey> {
        private static final long serialVersionUID = 1L;

        private final TemplateScopeMode mode;

        public OfArchived(TemplateScopeMode mode) {
            this.mode = mode;
        }

        @Override
        public ExporterKey getKey(ArchivedTemplate t) {
            return mode.owner(new ExporterKey(t.exporterAddress(), t.exporterPort()));
        }
    }

    /** Keys observations by the key that made them. */
    public static final class OfObservation
            implements KeySelector<DatagramObservation, ExporterKey> {
        private static final long serialVersionUID = 1L;

        @Override
        public ExporterKey getKey(DatagramObservation o) {
            return o.exporter();
        }
    }
}
