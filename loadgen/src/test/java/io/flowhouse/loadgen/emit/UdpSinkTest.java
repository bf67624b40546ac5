// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UdpSinkTest {

    @Test
    void bindPlusGivesEachExporterTheNextAddress() throws Exception {
        assertThat(UdpSink.bindAddress("127.0.0.1", 5).getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(UdpSink.bindAddress("127.0.0.2+", 0).getHostAddress()).isEqualTo("127.0.0.2");
        assertThat(UdpSink.bindAddress("127.0.0.2+", 7).getHostAddress()).isEqualTo("127.0.0.9");
        assertThat(UdpSink.bindAddress("127.0.0.255+", 1).getHostAddress()).isEqualTo("127.0.1.0");
        assertThat(UdpSink.bindAddress("fd00::ff+", 2).getHostAddress())
                .isEqualTo("fd00:0:0:0:0:0:0:101");
        assertThatThrownBy(() -> UdpSink.bindAddress("255.255.255.254+", 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaves the address space");
    }
}
