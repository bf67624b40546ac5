// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalPortsTest {

    @Test
    void aListenerIsOwnedByItsProcessAndNoOtherOne() throws Exception {
        Process other = new ProcessBuilder("sleep", "30").start();
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = socket.getLocalPort();

            assertThat(LocalPorts.tcpListenerOwnedBy(ProcessHandle.current(), port)).isTrue();
            assertThat(LocalPorts.tcpListenerOwnedBy(other.toHandle(), port)).isFalse();
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPortNobodyListensOnIsOwnedByNobody() {
        int port = LocalPorts.free(1)[0];

        assertThat(LocalPorts.tcpListenerOwnedBy(ProcessHandle.current(), port)).isFalse();
    }
}
