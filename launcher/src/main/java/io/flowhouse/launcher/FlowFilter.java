// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.schema.v1.Flow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The {@code --filter} of {@code ./flowhouse tail}: terms {@code KEY=VALUE}, separated by spaces or
 * {@code and}, that must all hold. Keys: {@code exporter}, {@code src}, {@code dst}, {@code addr}
 * (source or destination), {@code exporter-port}, {@code src-port}, {@code dst-port}, {@code port}
 * (either), {@code proto} (a number, tcp, udp, icmp, icmpv6), {@code version}.
 */
final class FlowFilter implements Predicate<Flow> {

    static final String KEYS =
            "exporter, src, dst, addr, exporter-port, src-port, dst-port, port, proto, version";

    private final List<Predicate<Flow>> terms;

    private FlowFilter(List<Predicate<Flow>> terms) {
        this.terms = terms;
    }

    /**
     * @throws IllegalArgumentException naming the term that does not parse
     */
    static FlowFilter parse(String expr) {
        List<Predicate<Flow>> terms = new ArrayList<>();
        if (expr == null || expr.isBlank()) {
            return new FlowFilter(terms);
        }
        for (String t : expr.trim().split("\\s+")) {
            if (t.equalsIgnoreCase("and")) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq <= 0 || eq == t.length() - 1) {
                throw new IllegalArgumentException(t + " (expected KEY=VALUE; keys: " + KEYS + ")");
            }
            terms.add(term(t.substring(0, eq).toLowerCase(Locale.ROOT), t.substring(eq + 1), t));
        }
        return new FlowFilter(terms);
    }

    private static Predicate<Flow> term(String key, String value, String term) {
        try {
            return switch (key) {
                case "exporter" -> addr(value, Flow::getExporterAddress);
                case "src" -> addr(value, Flow::getSrcAddr);
                case "dst" -> addr(value, Flow::getDstAddr);
                case "addr" -> addr(value, Flow::getSrcAddr).or(addr(value, Flow::getDstAddr));
                case "exporter-port" -> number(value, Flow::getExporterPort);
                case "src-port" -> number(value, Flow::getSrcPort);
                case "dst-port" -> number(value, Flow::getDstPort);
                case "port" -> number(value, Flow::getSrcPort).or(number(value, Flow::getDstPort));
                case "proto" -> number(Integer.toString(protocol(value)), Flow::getProto);
                case "version" -> number(value, Flow::getVersion);
                default ->
                        throw new IllegalArgumentException(
                                term + " (unknown key " + key + "; keys: " + KEYS + ")");
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(term + " (expected a number)", e);
        }
    }

    private static Predicate<Flow> addr(
            String value, java.util.function.Function<Flow, com.google.protobuf.ByteString> f) {
        byte[] want;
        try {
            want = IpAddress.parse(value).toBytes16();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(value + " (expected an IPv4 or IPv6 address)", e);
        }
        return flow -> Arrays.equals(f.apply(flow).toByteArray(), want);
    }

    private static Predicate<Flow> number(String value, java.util.function.ToIntFunction<Flow> f) {
        int want = Integer.parseInt(value);
        return flow -> f.applyAsInt(flow) == want;
    }

    private static int protocol(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "icmp" -> 1;
            case "tcp" -> 6;
            case "udp" -> 17;
            case "icmpv6" -> 58;
            default -> Integer.parseInt(v);
        };
    }

    @Override
    public boolean test(Flow f) {
        for (Predicate<Flow> t : terms) {
            if (!t.test(f)) {
                return false;
            }
        }
        return true;
    }
}
