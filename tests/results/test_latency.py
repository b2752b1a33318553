"""Percentiles over all operation types: merged histograms, and the labelled fallback."""

import json

import pytest

from contio.engine.result import parse_result
from contio.results.latency import MERGED, UPPER_BOUND, phase_latency
from engine_documents import document, histogram_of, operation


def test_percentiles_come_from_the_merged_histograms():
    reads = list(range(1, 901))  # fast reads
    updates = list(range(5000, 5100))  # slow updates: the top 10% of all operations
    doc = document({"READ": operation(reads), "UPDATE": operation(updates)})
    latency = phase_latency(parse_result(json.dumps(doc), "doc"))
    everything = histogram_of(reads + updates)
    assert latency.source == MERGED
    assert latency.percentiles["p95"] == everything.get_value_at_percentile(95)
    assert latency.percentiles["p99"] == everything.get_value_at_percentile(99)
    # Neither per-type p95 is the overall one.
    assert latency.percentiles["p95"] not in (
        doc["operations_by_type"]["READ"]["latency_us"]["p95"],
        doc["operations_by_type"]["UPDATE"]["latency_us"]["p95"],
    )


def test_without_histograms_the_upper_bound_is_labelled():
    doc = document(
        {
            "READ": operation([10] * 99, with_histogram=False),
            "UPDATE": operation([500] * 10, with_histogram=False),
        }
    )
    latency = phase_latency(parse_result(json.dumps(doc), "doc"))
    assert latency.source == UPPER_BOUND
    assert latency.percentiles["p95"] == pytest.approx(500, rel=1e-3)


def test_an_undecodable_histogram_falls_back():
    op = operation([10, 20]) | {"histogram": "not base64 at all!"}
    latency = phase_latency(parse_result(json.dumps(document({"READ": op})), "doc"))
    assert latency.source == UPPER_BOUND
    assert latency.percentiles["p99"] == 20


def test_cleanup_is_not_an_operation_of_the_workload():
    doc = document({"READ": operation([10] * 100), "CLEANUP": operation([90_000] * 4)})
    latency = phase_latency(parse_result(json.dumps(doc), "doc"))
    assert latency.percentiles["p99"] == 10
