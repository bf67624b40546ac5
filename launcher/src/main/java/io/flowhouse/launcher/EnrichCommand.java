// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.jobs.tables.AsNamesTable;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./flowhouse enrich load-as-names}: the enrichment data kept in ClickHouse. */
@Command(
        name = "enrich",
        mixinStandardHelpOptions = true,
        description = "enrichment data in ClickHouse: load-as-names")
final class EnrichCommand implements Callable<Integer> {

    static final String DATABASE = "flowhouse";

    @Spec CommandSpec spec;

    private final LaunchContext ctx;

    EnrichCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    List<Object> subcommands() {
        return List.of(new LoadAsNames(ctx));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(ctx.err());
        return ExitCode.USAGE;
    }

    /** {@code ./flowhouse enrich load-as-names [FILE.mmdb]}. */
    @Command(
            name = "load-as-names",
            mixinStandardHelpOptions = true,
            description = {
                "fill the table as_names (AS number -> organisation, joined by flows_readable and",
                "the console) from an ASN database: GeoLite2-ASN or the asn.mmdb of",
                "enrichment/scripts/fetch-geo-data.sh (the default). Idempotent: names already",
                "stored are not written again. ./flowhouse up and demo do it by themselves."
            })
    static final class LoadAsNames implements Callable<Integer> {
        private final LaunchContext ctx;

        @Mixin ServicesOptions services = new ServicesOptions();

        @Parameters(
                arity = "0..1",
                paramLabel = "FILE.mmdb",
                description = "the ASN database (default: asn.mmdb of the fetched open data)")
        Path file;

        @Option(
                names = "--database",
                paramLabel = "NAME",
                description = "the ClickHouse database (default flowhouse)")
        String database = DATABASE;

        @Option(
                names = "--wait",
                paramLabel = "SECONDS",
                description = "wait this long for the job to create as_names (default 0)")
        int waitSeconds;

        LoadAsNames(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws InterruptedException {
            Ranges.check("--wait", waitSeconds, 0, 3600);
            Path mmdb = file != null ? file : GeoData.dir(ctx.env()).resolve("asn.mmdb");
            if (!Files.isReadable(mmdb)) {
                ctx.err()
                        .println(
                                "flowhouse enrich load-as-names: cannot read "
                                        + mmdb
                                        + (file == null
                                                ? " (fetch it with"
                                                        + " enrichment/scripts/fetch-geo-data.sh)"
                                                : ""));
                return ExitCode.FAILURE;
            }
            return load(
                            services.config(ctx, true),
                            database,
                            mmdb,
                            Duration.ofSeconds(waitSeconds),
                            ctx.out(),
                            ctx.err())
                    ? ExitCode.OK
                    : ExitCode.FAILURE;
        }
    }

    /** Loads the names of {@code mmdb} into the local services' ClickHouse; false on failure. */
    static boolean load(
            ServicesConfig config,
            String database,
            Path mmdb,
            Duration wait,
            PrintStream out,
            PrintStream err)
            throws InterruptedException {
        ClickHouseSinkOptions options =
                ClickHouseSinkOptions.builder()
                        .url(config.clickhouseUrls())
                        .passwordFile(config.clickhousePasswordFile().toString())
                        .database(database)
                        .build();
        try {
            long start = System.nanoTime();
            AsNamesTable.Result r = AsNamesTable.load(options, mmdb, wait);
            out.printf(
                    Locale.ROOT,
                    "as_names: %,d AS names in %s; %,d written, %,d already stored (%.1f s)%n",
                    r.inFile(),
                    mmdb,
                    r.written(),
                    r.unchanged(),
                    (System.nanoTime() - start) / 1e9);
            return true;
        } catch (IOException e) {
            err.println("as_names not loaded from " + mmdb + ": " + e.getMessage());
            return false;
        }
    }
}
