"""Metrics sampled every second while a cell runs: per container from its cgroup
(`contio.samplers.cgroup`), for the host from /proc (`contio.samplers.host`), and the
thread that samples both and turns counters into rates (`contio.samplers.series`).
"""
