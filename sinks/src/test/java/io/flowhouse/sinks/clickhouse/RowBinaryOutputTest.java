// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.flow.IpAddress;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowBinaryOutputTest {

    private static String hex(RowBinaryOutput out) {
        return HexFormat.of().formatHex(out.toByteArray());
    }

    @Test
    void integersAreLittleEndian() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.uint8(0xab).uint16(0x1234).uint32(0xdead_beefL).uint64(0x0102_0304_0506_0708L);
        assertThat(hex(out)).isEqualTo("ab" + "3412" + "efbeadde" + "0807060504030201");
    }

    @Test
    void unsignedMaximaAndNegativeInt8() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.uint32(0xffff_ffffL).uint64(-1L).int8(-1);
        assertThat(hex(out)).isEqualTo("ffffffff" + "ffffffffffffffff" + "ff");
    }

    @Test
    void stringsHaveLeb128Lengths() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.string("hi").string("").string("x".repeat(300));
        byte[] b = out.toByteArray();
        assertThat(HexFormat.of().formatHex(b, 0, 4)).isEqualTo("02" + "6869" + "00");
        // 300 = 0b1_0010_1100 -> 0xac 0x02
        assertThat(HexFormat.of().formatHex(b, 4, 6)).isEqualTo("ac02");
        assertThat(b).hasSize(4 + 2 + 300);
    }

    @Test
    void stringsAreUtf8WhateverTheirLengthAndCharacters() {
        List<String> values =
                List.of(
                        "",
                        "xe-0/0/1",
                        "x".repeat(127),
                        "x".repeat(128),
                        "mgmt-\u00e9",
                        "\u00e9" + "x".repeat(126),
                        "x".repeat(126) + "\u00e9",
                        "edge1 \u2192 \ud83d\ude80",
                        "\u007f\u0080",
                        "\u00e9".repeat(200));
        RowBinaryOutput small = new RowBinaryOutput(1);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (String v : values) {
            small.string(v);
            byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
            RowBinaryOutput length = new RowBinaryOutput(8);
            length.varUInt(utf8.length);
            expected.writeBytes(length.toByteArray());
            expected.writeBytes(utf8);
        }
        assertThat(small.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void ipAddressesAreSixteenBytesNetworkOrderIpv4Mapped() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.ipv6(IpAddress.parse("192.0.2.1")).ipv6(IpAddress.parse("2001:db8::1"));
        assertThat(hex(out))
                .isEqualTo("00000000000000000000ffffc0000201" + "20010db8000000000000000000000001");
    }

    @Test
    void dateTimeIsClampedSecondsAndDateTime64IsMillis() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.dateTime(1_705_320_000_999L).dateTime(-5).dateTime(Long.MAX_VALUE);
        out.dateTime64Millis(1_705_320_000_999L);
        assertThat(hex(out))
                .isEqualTo(
                        "401ea565" // 1705320000
                                + "00000000"
                                + "ffffffff"
                                + "e72dfe0c8d010000");
    }

    @Test
    void fixedStringPadsAndRejectsOverlong() {
        RowBinaryOutput out = new RowBinaryOutput(8);
        out.fixedString(new byte[] {1, 2}, 4);
        assertThat(hex(out)).isEqualTo("01020000");
        assertThatThrownBy(() -> out.fixedString(new byte[5], 4))
                .hasMessageContaining("FixedString(4)");
    }

    @Test
    void arraysAndGrowth() {
        RowBinaryOutput out = new RowBinaryOutput(1);
        out.stringArray(List.of("a", "bc")).uint64Array(new long[] {1, 2});
        assertThat(hex(out))
                .isEqualTo(
                        "02" + "0161" + "026263" + "02" + "0100000000000000" + "0200000000000000");
        out.reset();
        assertThat(out.size()).isZero();
        for (int i = 0; i < 100_000; i++) {
            out.uint64(i);
        }
        assertThat(out.size()).isEqualTo(800_000);
    }
}
