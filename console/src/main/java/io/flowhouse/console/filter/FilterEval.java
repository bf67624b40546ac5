// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.filter;

/**
 * Evaluates a filter on one address field in Java, for data that is not in ClickHouse (the rejected
 * topic's exporters). Only filters on that one field get here.
 */
public final class FilterEval {

    private FilterEval() {}

    public static boolean matches(Filter f, byte[] address) {
        if (f instanceof Filter.All) {
            return true;
        }
        if (f instanceof Filter.And a) {
            return a.terms().stream().allMatch(t -> matches(t, address));
        }
        if (f instanceof Filter.Or o) {
            return o.terms().stream().anyMatch(t -> matches(t, address));
        }
        if (f instanceof Filter.Not n) {
            return !matches(n.term(), address);
        }
        if (f instanceof Filter.Compare c && c.value() instanceof Filter.AddressValue v) {
            boolean in = inPrefix(address, v);
            return c.op() == Filter.Op.EQ ? in : !in;
        }
        if (f instanceof Filter.In in) {
            boolean any =
                    in.values().stream()
                            .anyMatch(
                                    v ->
                                            v instanceof Filter.AddressValue a
                                                    && inPrefix(address, a));
            return in.negated() != any;
        }
        throw new IllegalArgumentException("not an address filter: " + f);
    }

    static boolean inPrefix(byte[] address, Filter.AddressValue v) {
        byte[] p = v.bytes();
        for (int bit = 0; bit < v.prefix(); bit++) {
            int i = bit / 8;
            int mask = 0x80 >>> (bit % 8);
            if ((address[i] & mask) != (p[i] & mask)) {
                return false;
            }
        }
        return true;
    }
}
