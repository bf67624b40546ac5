// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KernelSettingTest {

    @Test
    void readsTheWholeValueAsCatShowsIt() throws Exception {
        Process cat = new ProcessBuilder("cat", "/proc/sys/net/core/rmem_max").start();
        String shown = new String(cat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(cat.waitFor()).isZero();

        assertThat(KernelSetting.read("net/core/rmem_max")).isEqualTo(Long.parseLong(shown.trim()));
    }

    @Test
    void aSettingAlreadyHighEnoughIsLeftAlone() throws Exception {
        long now = KernelSetting.read("net/core/rmem_max");
        try (KernelSetting s = KernelSetting.atLeast("net/core/rmem_max", 1)) {
            assertThat(s.note()).contains("already enough");
        }
        assertThat(KernelSetting.read("net/core/rmem_max")).isEqualTo(now);
    }
}
