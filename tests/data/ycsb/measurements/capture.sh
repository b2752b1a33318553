#!/usr/bin/env bash
# Captures YCSB 0.17.0's output for every measurement type into this folder
# (see ../README.md). Needs java, YCSB core in ~/.cache/contio/ycsb/jars
# (scripts/setup-bench.sh), javax.xml.bind:jaxb-api:2.3.1 (HdrHistogram 2.1.4's log
# writer needs it on Java 11+) and org.hdrhistogram:HdrHistogram:2.1.10 (the
# HistogramLogProcessor PerfKitBenchmarker runs on the logs) in ~/.m2, e.g.
#   mvn dependency:get -Dartifact=javax.xml.bind:jaxb-api:2.3.1
#   mvn dependency:get -Dartifact=org.hdrhistogram:HdrHistogram:2.1.10
set -euo pipefail
cd "$(dirname "$0")"
source ./capture-env.sh  # m2, cp, processor, run NAME ARGS…
run histogram-load -p measurementtype=histogram -p measurement.histogram.verbose=true \
    -p histogram.buckets=20 -s -load
run histogram-run -p measurementtype=histogram -p measurement.histogram.verbose=true \
    -p histogram.buckets=20 -s -t
run timeseries-run -p measurementtype=timeseries -p timeseries.granularity=50 -s -t
run raw-run -p measurementtype=raw -s -t
rm -f ycsb-0.17.0-raw-file-run.csv
run raw-file-run -p measurementtype=raw -p measurement.raw.output_file=ycsb-0.17.0-raw-file-run.csv -s -t
run hdrhistogram-histogram-run -p measurementtype=hdrhistogram+histogram \
    -p measurement.histogram.verbose=true -p histogram.buckets=20 -s -t
run hdrhistogram-raw-run -p measurementtype=hdrhistogram+raw -s -t
run hdrhistogram-file-run -p measurementtype=hdrhistogram -p hdrhistogram.fileoutput=true \
    -p hdrhistogram.output.path=ycsb-0.17.0-hdr- -p operationcount=1200 -p status.interval=1 -s -t
for group in READ UPDATE; do
    java -cp "$processor" org.HdrHistogram.HistogramLogProcessor -i "ycsb-0.17.0-hdr-$group.hdr" \
        -outputValueUnitRatio 1 -v >"ycsb-0.17.0-hdr-$group.hgrm"
done
