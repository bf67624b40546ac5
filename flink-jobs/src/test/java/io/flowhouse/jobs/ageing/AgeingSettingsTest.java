// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.jobs.ageing.AgeingSettings.FlowTableChoice;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * {@code flowhouse.packets.flow-table}: {@code auto} (the default) picks the bucketed table on the
 * heap state backend and the keyed one on RocksDB, ForSt, any other backend and with the changelog;
 * {@code bucketed} and {@code keyed} are kept whatever the backend.
 */
class AgeingSettingsTest {

    private static Configuration flink(String key, String value) {
        Configuration c = new Configuration();
        c.setString(key, value);
        return c;
    }

    private static AgeingSettings table(String value) {
        return AgeingSettings.from(
                ConfigResolver.of(AgeingConfigKeys.SCHEMA)
                        .flag("flowhouse.packets.flow-table", value, "--packets.flow-table")
                        .resolve());
    }

    @Test
    void autoIsTheDefaultAndPicksTheBucketedTableOnTheHeapBackend() {
        AgeingSettings s = AgeingSettings.defaults();
        assertThat(s.flowTable()).isEqualTo(FlowTableChoice.AUTO);
        assertThat(s.bucketedTable(new Configuration())).isTrue();
        assertThat(s.bucketedTable(flink("state.backend.type", "hashmap"))).isTrue();
        assertThat(s.bucketedTable(flink("state.backend.type", " HashMap "))).isTrue();
    }

    @Test
    void autoPicksTheKeyedTableOnEveryOtherBackendAndWithTheChangelog() {
        AgeingSettings s = table("Auto");
        assertThat(s.bucketedTable(flink("state.backend.type", "rocksdb"))).isFalse();
        assertThat(s.bucketedTable(flink("state.backend.type", "forst"))).isFalse();
        assertThat(s.bucketedTable(flink("state.backend.type", "com.example.MyBackendFactory")))
                .isFalse();
        assertThat(s.bucketedTable(flink("state.changelog.enabled", "true"))).isFalse();
    }

    @Test
    void bucketedAndKeyedAreKeptWhateverTheBackend() {
        Configuration rocks = flink("state.backend.type", "rocksdb");
        assertThat(table("bucketed").bucketedTable(rocks)).isTrue();
        assertThat(table("keyed").bucketedTable(new Configuration())).isFalse();
        assertThat(table(" KEYED ").flowTable()).isEqualTo(FlowTableChoice.KEYED);
        assertThatThrownBy(() -> table("hashed"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto, bucketed or keyed");
    }

    @Test
    void theTopologyReadsTheBackendFromItsEnvironment() {
        assertThat(ageingUid(new Configuration()))
                .isEqualTo(PacketFlowTopology.UID_AGEING_BUCKETED);
        assertThat(ageingUid(flink("state.backend.type", "rocksdb")))
                .isEqualTo(PacketFlowTopology.UID_AGEING);
        assertThat(ageingUid(flink("state.backend.type", "forst")))
                .isEqualTo(PacketFlowTopology.UID_AGEING);
    }

    private static String ageingUid(Configuration conf) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        DataStream<PacketSummary> packets =
                env.fromData(
                        List.of(Packets.udp(0, "192.0.2.1", 1, "198.51.100.1", 53, 60)),
                        PacketSummaryTypeInfo.INSTANCE);
        return PacketFlowTopology.age(packets, AgeingSettings.defaults())
                .getTransformation()
                .getUid();
    }
}
