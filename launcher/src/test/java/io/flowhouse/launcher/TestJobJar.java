// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.launcher.testjob.SequenceJob;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/** Packs the compiled {@code testjob} package into a job jar, as a user's build would. */
final class TestJobJar {

    private TestJobJar() {}

    static Path build(Path dir) throws IOException, URISyntaxException {
        Path classes =
                Path.of(
                        SequenceJob.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        Path packageDir = classes.resolve("io/flowhouse/launcher/testjob");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, SequenceJob.class.getName());
        Path jar = dir.resolve("sequence-job.jar");
        List<Path> files;
        try (Stream<Path> walk = Files.list(packageDir)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
            for (Path file : files) {
                jarOut.putNextEntry(
                        new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                jarOut.write(Files.readAllBytes(file));
                jarOut.closeEntry();
            }
        }
        return jar;
    }
}
