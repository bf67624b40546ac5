// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.nio.charset.StandardCharsets;
import org.snmp4j.smi.Counter64;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UnsignedInteger32;
import org.snmp4j.smi.Variable;

/**
 * Values from an agent, which may be hostile: bounded strings, numbers only where numbers belong.
 */
final class SnmpText {

    private SnmpText() {}

    /**
     * The text of an OctetString as UTF-8, control characters replaced by spaces, cut to {@code
     * maxChars}; "" for anything else (noSuchObject, endOfMibView, a wrong type).
     */
    static String text(Variable v, int maxChars, SnmpCounters counters) {
        if (!(v instanceof OctetString os)) {
            return "";
        }
        byte[] bytes = os.getValue();
        // Four bytes at most per character: decode no more than what can survive the cut.
        long limit = Math.min(bytes.length, 4L * maxChars);
        String s = new String(bytes, 0, (int) limit, StandardCharsets.UTF_8);
        boolean cut = limit < bytes.length;
        if (s.length() > maxChars) {
            int end = maxChars;
            if (Character.isHighSurrogate(s.charAt(end - 1))) {
                end--;
            }
            s = s.substring(0, end);
            cut = true;
        }
        if (cut) {
            counters.valuesTruncated.incrementAndGet();
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                if (b == null) {
                    b = new StringBuilder(s);
                }
                b.setCharAt(i, ' ');
            }
        }
        return b == null ? s : b.toString();
    }

    /** A non-negative number (Gauge32, Integer32, Counter64), else 0. */
    static long number(Variable v) {
        if (v instanceof UnsignedInteger32 || v instanceof Integer32 || v instanceof Counter64) {
            return Math.max(0, v.toLong());
        }
        return 0;
    }
}
