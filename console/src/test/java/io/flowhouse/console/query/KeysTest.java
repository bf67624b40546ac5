// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.console.model.Fields;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeysTest {

    @Test
    void asLabelsCarryTheirNamesAndAsZeroHasNone() {
        Keys keys =
                new Keys(
                        List.of(Fields.standard().dimension("ASPair").orElseThrow()),
                        Source.AS_PAIR,
                        AddressForm.FIXED_STRING);
        List<String> key = List.of("15169", "0");
        assertThat(keys.asNumbers(List.of(key, List.of("13335", "15169"))))
                .containsExactly(13_335L, 15_169L);
        assertThat(keys.label(key, 0, 2)).isEqualTo("AS15169 · AS0");
        keys.asNames(Map.of(15_169L, "GOOGLE"));
        assertThat(keys.label(key, 0, 2)).isEqualTo("AS15169 GOOGLE · AS0");
        assertThat(keys.label(List.of("13335", "15169"), 0, 2))
                .isEqualTo("AS13335 · AS15169 GOOGLE");
    }
}
