// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

/**
 * What the rules file says about an exporter or a network: name, role, site, region, tenant. Empty
 * strings mean not said.
 */
public record Attributes(String name, String role, String site, String region, String tenant) {

    public static final Attributes NONE = new Attributes("", "", "", "", "");

    public Attributes {
        name = orEmpty(name);
        role = orEmpty(role);
        site = orEmpty(site);
        region = orEmpty(region);
        tenant = orEmpty(tenant);
    }

    /** These, with each field not said here taken from {@code wider} (a less specific entry). */
    public Attributes over(Attributes wider) {
        return new Attributes(
                name.isEmpty() ? wider.name : name,
                role.isEmpty() ? wider.role : role,
                site.isEmpty() ? wider.site : site,
                region.isEmpty() ? wider.region : region,
                tenant.isEmpty() ? wider.tenant : tenant);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
