// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.stamp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentEpochTest {

    private static Clock at(long millis) {
        return Clock.fixed(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    @Test
    void advancesAtEveryStartAndKeepsItOnDisk(@TempDir Path dir) throws Exception {
        Path spool = dir.resolve("spool");
        long first = AgentEpoch.next(spool, at(1_700_000_000_000L));
        assertThat(first).isEqualTo(1_700_000_000_000L);
        // Two starts in the same millisecond, or a clock set back: still one more each time.
        assertThat(AgentEpoch.next(spool, at(1_700_000_000_000L))).isEqualTo(first + 1);
        assertThat(AgentEpoch.next(spool, at(1_600_000_000_000L))).isEqualTo(first + 2);
        assertThat(Files.readString(spool.resolve(AgentEpoch.FILE), StandardCharsets.US_ASCII))
                .isEqualTo((first + 2) + "\n");
        assertThat(spool.resolve(AgentEpoch.FILE + ".tmp")).doesNotExist();
        // A later start after a long stop takes the clock.
        assertThat(AgentEpoch.next(spool, at(1_800_000_000_000L))).isEqualTo(1_800_000_000_000L);
    }

    @Test
    void aLostSpoolDirectoryStillGivesANewEpoch(@TempDir Path dir) throws Exception {
        long before = AgentEpoch.next(dir.resolve("a"), at(1_700_000_000_000L));
        // The directory is gone (a new container): the clock has moved on since.
        long after = AgentEpoch.next(dir.resolve("b"), at(1_700_000_005_000L));
        assertThat(after).isGreaterThan(before);
    }

    @Test
    void anUnwritableDirectoryFallsBackAboveEveryStoredEpoch(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not-a-directory");
        Files.writeString(file, "x");
        long epoch = AgentEpoch.next(file, at(1_700_000_000_000L));
        assertThat(epoch).isBetween(1_700_000_000_000L * 1024, 1_700_000_000_000L * 1024 + 1023);
        assertThatThrownBy(() -> AgentEpoch.advance(file, at(1L))).isInstanceOf(IOException.class);
    }

    @Test
    void aCorruptEpochFileGivesWayToTheClock(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(AgentEpoch.FILE), "garb");
        assertThat(AgentEpoch.next(dir, at(5_000L))).isEqualTo(5_000L);
        assertThat(AgentEpoch.next(dir, at(5_000L))).isEqualTo(5_001L);
    }
}
