#!/usr/bin/env bash
# Captures YCSB 0.17.0's output for every measurement type with
# measurement.interval=intended and =both at a target rate the two threads cannot
# keep (-target 4000: 2000 ops/s each, against a 0-2 ms service time), so latency
# from the intended start grows well past the service time; and the two JSON
# exporters. Needs what capture.sh needs (see ../README.md).
set -euo pipefail
cd "$(dirname "$0")"
source ./capture-env.sh  # m2, cp, processor, run NAME ARGS…
for interval in intended both; do
    # Default buckets (1000 of 1 ms), not verbose: the percentile lines need the
    # intended latencies (up to ~0.5 s here) inside the buckets.
    run "histogram-$interval-run" -p measurementtype=histogram \
        -p measurement.interval=$interval -target 4000 -s -t
    run "timeseries-$interval-run" -p measurementtype=timeseries -p timeseries.granularity=50 \
        -p measurement.interval=$interval -target 4000 -s -t
    run "raw-$interval-run" -p measurementtype=raw -p measurement.interval=$interval -target 4000 -s -t
    run "hdrhistogram-histogram-$interval-run" -p measurementtype=hdrhistogram+histogram \
        -p measurement.interval=$interval -target 4000 -s -t
    run "hdrhistogram-raw-$interval-run" -p measurementtype=hdrhistogram+raw \
        -p measurement.interval=$interval -target 4000 -s -t
    run "hdrhistogram-file-$interval-run" -p measurementtype=hdrhistogram -p hdrhistogram.fileoutput=true \
        -p hdrhistogram.output.path=ycsb-0.17.0-hdr-$interval- -p measurement.interval=$interval \
        -target 4000 -p status.interval=1 -s -t
    for group in READ UPDATE; do
        java -cp "$processor" org.HdrHistogram.HistogramLogProcessor \
            -i "ycsb-0.17.0-hdr-$interval-$group.hdr" -outputValueUnitRatio 1 -v \
            >"ycsb-0.17.0-hdr-$interval-$group.hgrm"
    done
done
rm -f ycsb-0.17.0-json-array-run.json
run json-array-run -p exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter \
    -p exportfile=ycsb-0.17.0-json-array-run.json -s -t
run json-run -p exporter=site.ycsb.measurements.exporter.JSONMeasurementsExporter -s -t
# PKB reads READ.hdr and UPDATE.hdr only.
rm -f ycsb-0.17.0-hdr-*-CLEANUP.hdr ycsb-0.17.0-hdr-both-Intended-*.hdr
