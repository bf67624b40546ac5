// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import java.io.IOException;

/** The file is not a pcap/pcapng file, or is damaged. */
public final class PcapFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    public PcapFormatException(String message) {
        super(message);
    }
}
