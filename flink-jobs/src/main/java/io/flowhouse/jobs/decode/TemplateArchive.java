// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.serde.ArchivedTemplateCodec;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decode step's side of the compacted templates topic: what the cache has to tell it (templates
 * and options data learned, re-sends a quarter lifetime apart, ends of withdrawn and expired
 * templates) goes out on {@link DecodeOutputs#TEMPLATES} (under the key's exporter: port 0 with
 * address-only scope), and entries read back at job start go into the cache, so a replay from any
 * offset decodes data whose template came earlier and not data received after it ended.
 *
 * <p>The archive is best effort: a record larger than {@code maxRecordBytes} (key and value) is not
 * written but counted ({@code templates_archive_skipped_total}) and logged at most once a minute.
 */
final class TemplateArchive {

    private static final Logger LOG = LoggerFactory.getLogger(TemplateArchive.class);
    private static final long LOG_INTERVAL_MILLIS = 60_000L;

    private final StateBackedTemplateCache cache;
    private final boolean enabled;
    private final int maxRecordBytes;
    private final DecodeMetrics metrics;
    private long lastLogMillis = Long.MIN_VALUE;

    TemplateArchive(
            StateBackedTemplateCache cache,
            boolean enabled,
            int maxRecordBytes,
            DecodeMetrics metrics) {
        this.cache = cache;
        this.enabled = enabled;
        this.maxRecordBytes = maxRecordBytes;
        this.metrics = metrics;
    }

    /** Writes what the cache has to tell the archive since its last bind. */
    void write(DecodeRawFlowFunction.Context ctx) {
        List<ArchivedTemplate> entries = cache.toArchive();
        if (!enabled || entries.isEmpty()) {
            return;
        }
        for (ArchivedTemplate t : entries) {
            int size = ArchivedTemplateCodec.valueSize(t) + ArchivedTemplateCodec.key(t).length;
            if (size > maxRecordBytes) {
                skipped(t, size);
            } else {
                ctx.output(DecodeOutputs.TEMPLATES, t);
            }
        }
    }

    private void skipped(ArchivedTemplate t, int size) {
        metrics.archiveSkipped.inc();
        long now = System.currentTimeMillis();
        if (now - lastLogMillis >= LOG_INTERVAL_MILLIS) {
            lastLogMillis = now;
            LOG.warn(
                    "not archiving {}: {} bytes (flowhouse.templates.archive-max-record-bytes {});"
                            + " a replay will hold its data until the exporter sends it again",
                    t,
                    size,
                    maxRecordBytes);
        }
    }

    /** Installs an archived template or options data; returns whether state changed. */
    boolean restore(ArchivedTemplate t) {
        return cache.restore(t);
    }
}
