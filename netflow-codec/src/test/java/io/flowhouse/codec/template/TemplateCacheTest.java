// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateCacheTest {

    private static final ExporterKey A = new ExporterKey(IpAddress.parse("10.0.0.1"), 4739);
    private static final ExporterKey B = new ExporterKey(IpAddress.parse("2001:db8::1"), 4739);
    private static final TemplateScope SA = new TemplateScope(A, 10, 1);
    private static final TemplateScope SB = new TemplateScope(B, 10, 1);
    private static final Template T1 = Template.of(256, List.of(FieldSpecifier.of(1, 8)));
    private static final Template T2 = Template.of(256, List.of(FieldSpecifier.of(2, 8)));
    private static final Template OPT =
            new Template(
                    300,
                    List.of(
                            FieldSpecifier.of(48, 1),
                            FieldSpecifier.of(34, 4),
                            new FieldSpecifier(1, 8, 29305)),
                    1);

    /** A clock the test moves by hand. */
    private static final class ManualClock implements InstantSource {
        long millis;

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    @Test
    void putReportsNewRefreshedReplaced() {
        InMemoryTemplateCache c = new InMemoryTemplateCache();
        assertThat(c.put(SA.key(256), T1)).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SA.key(256), T1)).isEqualTo(TemplateStatus.REFRESHED);
        assertThat(c.put(SA.key(256), T2)).isEqualTo(TemplateStatus.REPLACED);
        assertThat(c.find(SA.key(256))).contains(T2);
        assertThat(c.find(SB.key(256))).isEmpty();
    }

    @Test
    void scopesKeepCollidingTemplateIdsApart() {
        InMemoryTemplateCache c = new InMemoryTemplateCache();
        c.put(SA.key(256), T1);
        c.put(SB.key(256), T2);
        c.put(new TemplateScope(A, 10, 2).key(256), T2);
        c.put(new TemplateScope(A, 9, 1).key(256), T2);
        assertThat(c.find(SA.key(256))).contains(T1);
        assertThat(c.size()).isEqualTo(4);
    }

    @Test
    void capIsPerExporterAndRemovalFreesRoom() {
        InMemoryTemplateCache c = new InMemoryTemplateCache(2);
        assertThat(c.put(SA.key(256), T1)).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SA.key(257), T1)).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SA.key(258), T1)).isEqualTo(TemplateStatus.REJECTED_LIMIT);
        assertThat(c.put(SA.key(257), T2)).isEqualTo(TemplateStatus.REPLACED);
        assertThat(c.put(SB.key(258), T1)).isEqualTo(TemplateStatus.NEW);
        assertThat(c.remove(SA.key(256))).isTrue();
        assertThat(c.put(SA.key(258), T1)).isEqualTo(TemplateStatus.NEW);
        assertThat(c.templateCount(A)).isEqualTo(2);
    }

    @Test
    void removeAllSeparatesDataAndOptionsTemplates() {
        InMemoryTemplateCache c = new InMemoryTemplateCache();
        c.put(SA.key(256), T1);
        c.put(SA.key(300), OPT);
        c.put(SB.key(256), T1);
        assertThat(c.removeAll(SA, false)).isEqualTo(1);
        assertThat(c.find(SA.key(300))).isPresent();
        assertThat(c.find(SB.key(256))).isPresent();
        c.putOptions(SA, OptionsData.EMPTY.withSamplingRate(1, 100));
        c.evictScope(SA);
        assertThat(c.find(SA.key(300))).isEmpty();
        assertThat(c.options(SA)).isEqualTo(OptionsData.EMPTY);
        assertThat(c.templateCount(A)).isZero();
    }

    @Test
    void templatesExpireAfterTheirLifetimeUnlessRefreshed() {
        ManualClock clock = new ManualClock();
        ExpiringTemplateCache c =
                new ExpiringTemplateCache(
                        new InMemoryTemplateCache(), clock, Duration.ofMinutes(30));
        c.put(SA.key(256), T1);
        c.put(SA.key(257), T1);
        clock.millis = Duration.ofMinutes(20).toMillis();
        c.put(SA.key(256), T1); // refresh
        clock.millis = Duration.ofMinutes(31).toMillis();
        assertThat(c.find(SA.key(256))).contains(T1);
        assertThat(c.find(SA.key(257))).isEmpty();
        clock.millis = Duration.ofMinutes(51).toMillis();
        assertThat(c.expire()).isEqualTo(1);
        assertThat(c.find(SA.key(256))).isEmpty();
    }

    @Test
    void optionsDataKeepsRatesBySampler() {
        OptionsData o =
                OptionsData.EMPTY
                        .withSamplingRate(1, 100)
                        .withSamplingRate(OptionsData.ANY_SAMPLER, 10)
                        .withSystemInitTimeMillis(1234)
                        .withInterfaceName(3, "eth0");
        assertThat(o.samplingRate(1)).isEqualTo(100);
        assertThat(o.samplingRate(2)).isEqualTo(10);
        assertThat(OptionsData.EMPTY.samplingRate(2)).isZero();
        assertThat(o.interfaceNames()).isEqualTo(Map.of(3L, "eth0"));
        assertThat(o.withSamplingRate(1, 100)).isSameAs(o);
    }

    @Test
    void wireFormRoundTrips() {
        for (Template t :
                List.of(T1, T2, OPT, Template.of(65535, List.of(FieldSpecifier.of(82, 0xffff))))) {
            assertThat(TemplateWire.decodeTemplate(TemplateWire.encode(t))).isEqualTo(t);
        }
        OptionsData o =
                OptionsData.EMPTY
                        .withSamplingRate(7, 1000)
                        .withSystemInitTimeMillis(99)
                        .withInterfaceName(1, "Gi0/0/1 é");
        assertThat(TemplateWire.decodeOptions(TemplateWire.encode(o))).isEqualTo(o);
        assertThat(TemplateWire.decodeOptions(TemplateWire.encode(OptionsData.EMPTY)))
                .isEqualTo(OptionsData.EMPTY);
        byte[] bad = TemplateWire.encode(OPT);
        assertThatThrownBy(
                        () ->
                                TemplateWire.decodeTemplate(
                                        java.util.Arrays.copyOf(bad, bad.length - 3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TemplateWire.decodeOptions(bad))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static Template wide(int id, int fields) {
        FieldSpecifier[] f = new FieldSpecifier[fields];
        java.util.Arrays.fill(f, FieldSpecifier.of(1, 8));
        return Template.of(id, List.of(f));
    }

    @Test
    void templatesAreBoundedInFieldsAndInBytesPerScope() {
        // 100 fields at most; 2 KiB per scope: two templates of 100 fields (807 bytes each).
        InMemoryTemplateCache c = new InMemoryTemplateCache(new TemplateLimits(4096, 100, 2048));
        assertThat(c.put(SA.key(256), wide(256, 101))).isEqualTo(TemplateStatus.REJECTED_TOO_LARGE);
        assertThat(c.put(SA.key(256), wide(256, 100))).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SA.key(257), wide(257, 100))).isEqualTo(TemplateStatus.NEW);
        assertThat(c.templateBytes(SA)).isEqualTo(2 * TemplateWire.encodedTemplateSize(100));
        assertThat(c.put(SA.key(258), wide(258, 100))).isEqualTo(TemplateStatus.REJECTED_LIMIT);
        // a smaller replacement fits, and frees room; other scopes have their own budget
        assertThat(c.put(SA.key(257), wide(257, 10))).isEqualTo(TemplateStatus.REPLACED);
        assertThat(c.put(SA.key(258), wide(258, 100))).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SB.key(258), wide(258, 100))).isEqualTo(TemplateStatus.NEW);
        // a withdrawal returns its bytes
        c.remove(SA.key(258));
        assertThat(c.templateBytes(SA))
                .isEqualTo(
                        TemplateWire.encodedTemplateSize(100)
                                + TemplateWire.encodedTemplateSize(10));
        c.removeAll(SA, false);
        assertThat(c.templateBytes(SA)).isZero();
        assertThat(c.templateCount(A)).isZero();
    }

    @Test
    void expiringCacheKeepsNoLifetimeForARefusedTemplate() {
        ManualClock clock = new ManualClock();
        InMemoryTemplateCache inner = new InMemoryTemplateCache(new TemplateLimits(1, 10, 1024));
        ExpiringTemplateCache c = new ExpiringTemplateCache(inner, clock, Duration.ofMinutes(30));
        assertThat(c.put(SA.key(256), wide(256, 11))).isEqualTo(TemplateStatus.REJECTED_TOO_LARGE);
        assertThat(c.put(SA.key(256), wide(256, 10))).isEqualTo(TemplateStatus.NEW);
        assertThat(c.put(SA.key(257), wide(257, 1))).isEqualTo(TemplateStatus.REJECTED_LIMIT);
        clock.millis = Duration.ofHours(1).toMillis();
        assertThat(c.expire()).isEqualTo(1); // only the one stored had a lifetime
        assertThat(inner.size()).isZero();
    }

    @Test
    void wireTellsOptionsTemplatesApartWithoutDecoding() {
        assertThat(TemplateWire.isOptionsTemplate(TemplateWire.encode(OPT))).isTrue();
        assertThat(TemplateWire.isOptionsTemplate(TemplateWire.encode(T1))).isFalse();
        assertThatThrownBy(() -> TemplateWire.isOptionsTemplate(new byte[3]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void limitsAreChecked() {
        assertThatThrownBy(() -> new TemplateLimits(0, 10, 1024))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TemplateLimits(1, 1000, 100))
                .hasMessageContaining("one template of maxFieldsPerTemplate fields");
        assertThatThrownBy(() -> new OptionsLimits(-1, 1, 1024))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionsEditorAppliesItsLimits() {
        // 2 entries per map at most, 13 + 2 * 12 + 16 + 5 + 5 bytes of names: see TemplateWire
        OptionsEditor e = new OptionsEditor();
        byte[] abc = "abcde".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int empty = TemplateWire.encodedSize(OptionsData.EMPTY);
        e.reset(OptionsData.EMPTY, new OptionsLimits(255, 2, empty + 2 * 17 + 16));
        assertThat(e.interfaceName(1, abc, 0, 5)).isEqualTo(OptionsEditor.Outcome.APPLIED);
        assertThat(e.interfaceName(1, abc, 0, 5)).isEqualTo(OptionsEditor.Outcome.UNCHANGED);
        assertThat(e.interfaceName(2, abc, 0, 5)).isEqualTo(OptionsEditor.Outcome.APPLIED);
        assertThat(e.interfaceName(3, abc, 0, 1)).isEqualTo(OptionsEditor.Outcome.REFUSED_ENTRIES);
        assertThat(e.samplingRate(7, 100)).isEqualTo(OptionsEditor.Outcome.APPLIED);
        assertThat(e.samplingRate(8, 100)).isEqualTo(OptionsEditor.Outcome.REFUSED_BYTES);
        // a longer name for a known interface would grow the scope beyond its bytes
        assertThat(
                        e.interfaceName(
                                2,
                                "abcdefgh".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                                0,
                                8))
                .isEqualTo(OptionsEditor.Outcome.REFUSED_BYTES);
        assertThat(e.samplingRate(7)).isEqualTo(100);
        assertThat(e.samplingRate(99)).isZero();
        OptionsData o = e.build();
        assertThat(o.interfaceNames()).isEqualTo(Map.of(1L, "abcde", 2L, "abcde"));
        assertThat(o.samplingRates()).isEqualTo(Map.of(7L, 100L));
        assertThat(TemplateWire.encode(o)).hasSize(empty + 2 * 17 + 16);
        // equal data, equal bytes, however it was built (the job compares them)
        assertThat(
                        TemplateWire.encode(
                                new OptionsData(
                                        Map.of(7L, 100L),
                                        o.systemInitTimeMillis(),
                                        new java.util.HashMap<>(Map.of(2L, "abcde", 1L, "abcde")))))
                .isEqualTo(TemplateWire.encode(o));
        assertThat(TemplateWire.decodeOptions(TemplateWire.encode(o))).isEqualTo(o);
    }
}
