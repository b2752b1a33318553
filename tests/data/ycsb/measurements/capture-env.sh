# Sourced by capture.sh and capture-intervals.sh: where the jars are and how YCSB's
# Client runs. Arguments in the order bin/ycsb hands them to YCSB's Client: -db CLASS,
# the user's options, then -load or -t.
m2="$HOME/.m2/repository"
cp="$HOME/.cache/contio/ycsb/jars/*:$m2/javax/xml/bind/jaxb-api/2.3.1/jaxb-api-2.3.1.jar"
processor="$m2/org/hdrhistogram/HdrHistogram/2.1.10/HdrHistogram-2.1.10.jar"
run() {
    local name=$1
    shift
    java -cp "$cp" site.ycsb.Client -db site.ycsb.BasicDB -P measure-workload.properties \
        -threads 2 "$@" >"ycsb-0.17.0-$name.stdout.txt" 2>"ycsb-0.17.0-$name.stderr.txt"
}
