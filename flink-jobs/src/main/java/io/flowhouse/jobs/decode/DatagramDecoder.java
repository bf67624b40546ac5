// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.template.TemplateCache;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The one call into the codec: a datagram and a template cache in, a {@link DecodedDatagram} out.
 * The codec sees the datagram's exporter as it is (address and port); which exporters share
 * templates is the cache's business. Holds the codec's scratch; one instance per function instance
 * (task thread).
 */
final class DatagramDecoder {

    private final NetflowDecoder decoder = new NetflowDecoder();

    DecodedDatagram decode(RawDatagram d, TemplateCache cache) throws DecodeException {
        DecodeResult r =
                decoder.decode(
                        ByteBuffer.wrap(d.payload()).asReadOnlyBuffer(),
                        new DecodeContext(d.exporter(), d.receivedMillis()),
                        cache);
        List<Integer> missing = List.of();
        for (DecodeProblem p : r.problems()) {
            if (p.kind() == DecodeProblem.Kind.TEMPLATE_MISSING) {
                if (missing.isEmpty()) {
                    missing = new ArrayList<>(2);
                }
                if (!missing.contains(p.templateId())) {
                    missing.add(p.templateId());
                }
            }
        }
        return new DecodedDatagram(
                r.records(),
                missing,
                r.version(),
                r.observationDomainId(),
                r.sequenceNumber(),
                r.sequenceUnits(),
                r.problems(),
                r.learned().size(),
                r.scope());
    }
}
