// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopNTest {

    static RollupRow talker(String addr, long bytes) {
        return new RollupRow(
                RollupKind.TALKER.code(),
                0,
                IpAddress.parse("192.0.2.10"),
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                IpAddress.parse(addr),
                IpAddress.UNSPECIFIED,
                bytes,
                1,
                1,
                bytes + 2);
    }

    @Test
    void keepsTheLargestAndALateUpdateReplacesItsEntry() {
        TopN top = new TopN(2);
        List<RollupRow> acc = top.createAccumulator();
        top.add(talker("198.51.100.1", 100), acc);
        top.add(talker("198.51.100.2", 300), acc);
        top.add(talker("198.51.100.3", 200), acc);
        assertThat(top.getResult(acc)).extracting(RollupRow::bytes).containsExactly(300L, 200L);
        // A late firing: .1 grew past everyone.
        top.add(talker("198.51.100.1", 500), acc);
        assertThat(top.getResult(acc)).extracting(RollupRow::bytes).containsExactly(500L, 300L);
        assertThat(acc).hasSize(2);
        List<RollupRow> other = top.createAccumulator();
        top.add(talker("198.51.100.9", 400), other);
        assertThat(top.getResult(top.merge(acc, other)))
                .extracting(RollupRow::bytes)
                .containsExactly(500L, 400L);
    }
}
