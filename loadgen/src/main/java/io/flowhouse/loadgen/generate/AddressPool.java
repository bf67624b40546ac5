// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import io.flowhouse.codec.flow.IpAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prefixes hosts are drawn from instead of the documentation ranges: real announced networks (the
 * demo samples them from an ASN database), each with the AS number an exporter that knows its
 * routes would send. A pure mapping from a host's rank to an address, so totals stay exact.
 *
 * <p>File format: one {@code CIDR [ASN]} a line; blank lines and {@code #} comments are skipped.
 * IPv4 prefixes /8 to /30, IPv6 /16 to /64.
 */
public final class AddressPool {

    /** One prefix: its first address and length, and its AS number (0: unknown). */
    record Prefix(IpAddress base, int length, long asn) {}

    private final List<Prefix> v4;
    private final List<Prefix> v6;

    AddressPool(List<Prefix> v4, List<Prefix> v6) {
        if (v4.isEmpty()) {
            throw new IllegalArgumentException("no IPv4 prefix (NetFlow v5 carries IPv4 only)");
        }
        this.v4 = List.copyOf(v4);
        this.v6 = List.copyOf(v6);
    }

    /** Reads a prefix file; an unreadable file or a bad line is an error naming the line. */
    public static AddressPool read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Prefix> v4 = new ArrayList<>();
        List<Prefix> v6 = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash).strip();
            }
            if (line.isEmpty()) {
                continue;
            }
            try {
                Prefix p = parse(line);
                (p.base.isIpv4() ? v4 : v6).add(p);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        file + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        try {
            return new AddressPool(v4, v6);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    static Prefix parse(String line) {
        String[] parts = line.split("\\s+");
        if (parts.length > 2) {
            throw new IllegalArgumentException("'" + line + "' (expected: CIDR [ASN])");
        }
        int slash = parts[0].indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("'" + parts[0] + "' (expected: ADDRESS/LENGTH)");
        }
        IpAddress base = IpAddress.parse(parts[0].substring(0, slash));
        int len = Integer.parseInt(parts[0].substring(slash + 1));
        if (base.isIpv4() ? len < 8 || len > 30 : len < 16 || len > 64) {
            throw new IllegalArgumentException(
                    "'" + parts[0] + "' (expected: IPv4 /8 to /30, IPv6 /16 to /64)");
        }
        long asn = parts.length == 2 ? Long.parseLong(parts[1]) : 0;
        if (asn < 0 || asn > 0xffff_ffffL) {
            throw new IllegalArgumentException("AS " + asn + " (expected: 0..4294967295)");
        }
        // The network's own first address, whatever host bits the line had.
        if (base.isIpv4()) {
            base = IpAddress.ofIpv4((int) (base.ipv4() & (0xffff_ffffL << (32 - len))));
        } else {
            base = new IpAddress(base.hi() & (-1L << (64 - len)), 0);
        }
        return new Prefix(base, len, asn);
    }

    /** Whether IPv6 prefixes were given (else IPv6 hosts stay in the documentation range). */
    boolean hasIpv6() {
        return !v6.isEmpty();
    }

    /**
     * Host {@code rank} of the clients ({@code server} false) or the servers: clients and servers
     * take alternate prefixes, and a host lies in the first 254 addresses of its prefix.
     */
    IpAddress host(int rank, boolean server, boolean ipv6) {
        List<Prefix> list = ipv6 ? v6 : v4;
        Prefix p = prefix(rank, server, ipv6);
        int slot = rank / list.size();
        if (!ipv6) {
            long size = 1L << (32 - p.length);
            int hosts = (int) Math.min(254, size - 2);
            return IpAddress.ofIpv4(p.base.ipv4() + 1 + slot % hosts);
        }
        return new IpAddress(p.base.hi(), 0x100 + slot % 64);
    }

    /** The AS number of host {@code rank}'s prefix. */
    long asn(int rank, boolean server, boolean ipv6) {
        return prefix(rank, server, ipv6).asn;
    }

    private Prefix prefix(int rank, boolean server, boolean ipv6) {
        List<Prefix> list = ipv6 ? v6 : v4;
        long index = 2L * (rank % list.size()) + (server ? 1 : 0);
        return list.get((int) (index % list.size()));
    }

    public int size() {
        return v4.size() + v6.size();
    }
}
