// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static io.flowhouse.codec.Wire.concat;
import static io.flowhouse.codec.Wire.repeat;
import static io.flowhouse.codec.Wire.set;
import static io.flowhouse.codec.Wire.values;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hostile datagrams we know, at full size: what {@code HostileInputTest} bounds and what the
 * fuzzer mutates beside the real captures.
 */
public final class HostileDatagrams {

    /** Largest datagram (UDP payload). */
    public static final int MAX = 0xffff;

    private HostileDatagrams() {}

    /**
     * An IPFIX template of {@code fields} sourceIPv4Address fields of 3 bytes (the element is 4),
     * then empty data sets of that template up to {@code size} bytes.
     */
    public static byte[] ipfixOddFieldBomb(int fields, int size) {
        byte[] templateSet = set(2, oddTemplate(fields));
        int empties = (size - 16 - templateSet.length) / 4;
        return Wire.ipfix(1, 0, concat(templateSet, repeat(set(256, new byte[0]), empties)));
    }

    /** As {@link #ipfixOddFieldBomb} in NetFlow v9. */
    public static byte[] v9OddFieldBomb(int fields, int size) {
        byte[] templateSet = set(0, oddTemplate(fields));
        int empties = (size - 20 - templateSet.length) / 4;
        return Wire.v9(1, 0, 1, concat(templateSet, repeat(set(256, new byte[0]), empties)));
    }

    private static byte[] oddTemplate(int fields) {
        int[] spec = new int[fields * 2];
        for (int i = 0; i < fields; i++) {
            spec[2 * i] = 8;
            spec[2 * i + 1] = 3;
        }
        return Wire.template(256, spec);
    }

    /** Empty data sets of a template id each, none of them known. */
    public static byte[] missingTemplates() {
        int n = (MAX - 16) / 4;
        ByteBuffer b = ByteBuffer.allocate(n * 4);
        for (int i = 0; i < n; i++) {
            b.putShort((short) (256 + i)).putShort((short) 4);
        }
        return Wire.ipfix(1, 0, b.array());
    }

    /** Withdrawals of templates that were never sent. */
    public static byte[] unknownWithdrawals() {
        int n = (MAX - 16 - 4) / 4;
        ByteBuffer b = ByteBuffer.allocate(n * 4);
        for (int i = 0; i < n; i++) {
            b.putShort((short) (256 + i)).putShort((short) 0);
        }
        return Wire.ipfix(1, 0, set(2, b.array()));
    }

    /** "Withdraw all templates", again and again. */
    public static byte[] withdrawAllFlood() {
        return Wire.ipfix(1, 0, set(2, repeat(values(2, 2, 0), (MAX - 16 - 4) / 4)));
    }

    /** Templates of one field each, as many as fit. */
    public static byte[] templateFlood() {
        int n = (MAX - 16 - 4) / 8;
        ByteBuffer t = ByteBuffer.allocate(n * 8);
        for (int i = 0; i < n; i++) {
            t.putShort((short) (256 + i)).putShort((short) 1).putShort((short) 8);
            t.putShort((short) 4);
        }
        return Wire.ipfix(1, 0, set(2, t.array()));
    }

    /** Options template set of 300: ingressInterface (scope), interfaceName (variable length). */
    public static byte[] namesTemplateSet() {
        return set(3, Wire.ipfixOptionsTemplate(300, 1, 10, 4, 82, 0xffff));
    }

    /** An interfaceName record: ifIndex, then a name of {@code 'x'}s with its length prefix. */
    public static byte[] nameRecord(long ifIndex, int nameLength) {
        byte[] prefix =
                nameLength < 255
                        ? values(1, nameLength)
                        : concat(values(1, 255), values(2, nameLength));
        byte[] name = new byte[nameLength];
        Arrays.fill(name, (byte) 'x');
        return concat(values(4, ifIndex), prefix, name);
    }

    /** The names options template, then one interface name as long as the datagram allows. */
    public static byte[] hugeOptionString() {
        byte[] t = namesTemplateSet();
        return Wire.ipfix(1, 1, t, set(300, nameRecord(7, MAX - 16 - t.length - 4 - 4 - 3)));
    }

    /** The names options template, then names of 1,000 bytes under distinct ifIndexes. */
    public static byte[] manyLongOptionStrings() {
        byte[] t = namesTemplateSet();
        byte[] many = new byte[0];
        for (int i = 0; 16 + t.length + 4 + many.length + 4 + 3 + 1000 <= MAX; i++) {
            many = concat(many, nameRecord(i, 1000));
        }
        return Wire.ipfix(1, 2, t, set(300, many));
    }

    /** The names options template, then 1-byte names under as many ifIndexes as fit. */
    public static byte[] optionsFlood() {
        byte[] t = namesTemplateSet();
        int n = (MAX - 16 - t.length - 4) / 6;
        ByteBuffer r = ByteBuffer.allocate(n * 6);
        for (int i = 0; i < n; i++) {
            r.putInt(i).put((byte) 1).put((byte) 'a');
        }
        return Wire.ipfix(1, 1, t, set(300, r.array()));
    }

    /** Every datagram above by name, each whole (it carries the templates it needs). */
    public static Map<String, byte[]> all() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("ipfix-odd-field-bomb", ipfixOddFieldBomb(8000, MAX));
        m.put("v9-odd-field-bomb", v9OddFieldBomb(8000, MAX));
        m.put("missing-templates", missingTemplates());
        m.put("unknown-withdrawals", unknownWithdrawals());
        m.put("withdraw-all-flood", withdrawAllFlood());
        m.put("template-flood", templateFlood());
        m.put("huge-option-string", hugeOptionString());
        m.put("many-long-option-strings", manyLongOptionStrings());
        m.put("options-flood", optionsFlood());
        return m;
    }
}
