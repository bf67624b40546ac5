// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateCache;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The one call into the codec: a datagram and a template cache in, a {@link DecodedDatagram} out.
 * The codec sees the datagram's exporter as it is (address and port); which exporters share
 * templates is the cache's business. Holds the codec's scratch; one instance per function instance
 * (task thread).
 */
final class DatagramDecoder {

    private final NetflowDecoder decoder;

    DatagramDecoder(OptionsLimits optionsLimits) {
        this.decoder = new NetflowDecoder(optionsLimits);
    }

    DecodedDatagram decode(RawDatagram d, TemplateCache cache) throws DecodeException {
        DecodeResult r =
                decoder.decode(
                        ByteBuffer.wrap(d.payload()).asReadOnlyBuffer(),
                        new DecodeContext(
                                d.exporter(),
                                d.receivedMillis(),
                                d.streamId(),
                                d.stamp() == null ? 0L : d.stamp().sequence()),
                        cache);
        return new DecodedDatagram(
                r.records(),
                r.missingTemplateIds(),
                r.version(),
                r.observationDomainId(),
                r.sequenceNumber(),
                r.sequenceUnits(),
                r.problems(),
                r.problemCounts(),
                r.learned().size(),
                r.scope(),
                r.sflow() == null ? List.of() : r.sflow().counters());
    }
}
