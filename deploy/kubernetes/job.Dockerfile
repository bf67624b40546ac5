# syntax=docker/dockerfile:1
# SPDX-License-Identifier: Apache-2.0
#
# Flink (the image of docker/versions.yml) with the flow pipeline job in usrlib, for
# flink-pipeline.yaml. Build context is the repository root, after
# `mvn -B -ntp package -DskipTests -pl flink-jobs -am`:
#   docker build -f deploy/kubernetes/job.Dockerfile -t flowhouse/flink-pipeline:0.1.0-SNAPSHOT .
FROM flink:2.2.1-java17
COPY --chown=flink:flink flink-jobs/target/flink-jobs-0.1.0-SNAPSHOT-job.jar /opt/flink/usrlib/flink-jobs-job.jar
