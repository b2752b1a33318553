"""Calibrating the interference model (`contio profile --pairs`) on made-up observations:
constants that generated them are recovered, the fit never does worse than the defaults,
too few observations are said to be, and `ModelConstants` reach every prediction. A
calibration file that cannot be used is refused naming the file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from profiles import profile

from contio.errors import CalibrationError, UsageError
from contio.profile.calibration import (
    MIN_MODEL_ERROR,
    Observation,
    ProfileUsed,
    calibration_document,
    fit,
    load_calibration,
    pairs_of,
    shared_backend,
)
from contio.profile.interference import DEFAULT_CONSTANTS, ModelConstants, predict
from contio.profile.placement import Member, advise, evaluate
from contio.profile.schema import Profile
from contio.profile.together import MemberOutcome

CORES = 8.0


def _pairs():
    """Pairs exercising both fitted constants: random beside random below saturation
    (queueing only), sequential beside random below and past saturation."""
    profiles = {
        "rnd-a": profile("rnd-a", 30.0),
        "rnd-b": profile("rnd-b", 40.0),
    }
    below = {"seq-c": profile("seq-c", 30.0, sequential=True), "rnd-d": profile("rnd-d", 40.0)}
    past = {"seq-e": profile("seq-e", 60.0, sequential=True), "rnd-f": profile("rnd-f", 60.0)}
    return pairs_of(profiles) + pairs_of(below) + pairs_of(past)


def _observed(pairs, constants, noise=0.0, seed=1):
    rng = random.Random(seed)
    found = []
    for pair in pairs:
        got = predict(list(pair.profiles), list(pair.names), CORES, constants=constants)
        for k, prediction in enumerate(got):
            found.append(Observation(pair, k, prediction.normalized + rng.gauss(0.0, noise)))
    return found


def test_constants_that_made_the_observations_are_recovered():
    truth = ModelConstants(queue_weight=0.5, sequential_penalty=0.8)
    observations = _observed(_pairs(), truth)
    found = fit(observations, CORES)
    assert found.after.queue_weight == pytest.approx(0.5)
    assert found.after.sequential_penalty == pytest.approx(0.8)
    assert found.error_after == pytest.approx(0.0, abs=1e-9)
    assert found.error_before > 0.01  # the defaults (0.25, 0.3) do not explain them
    assert found.after.model_error == MIN_MODEL_ERROR  # a perfect fit is not believed
    assert found.observations == 6 and found.well_determined and not found.undetermined


def test_the_fit_is_never_worse_than_the_constants_it_starts_from():
    for seed in range(5):
        observations = _observed(_pairs(), ModelConstants(0.7, 1.1), noise=0.05, seed=seed)
        found = fit(observations, CORES)
        assert found.error_after <= found.error_before
        assert found.after.model_error == pytest.approx(max(MIN_MODEL_ERROR, found.error_after))
        off_grid = fit(observations, CORES, start=ModelConstants(0.123, 0.456))
        assert off_grid.error_after <= off_grid.error_before


def test_too_few_observations_and_constants_no_pair_depends_on_are_said():
    pair = pairs_of({"a": profile("a", 30.0), "b": profile("b", 40.0)})
    observations = _observed(pair, ModelConstants(0.6, 0.3))
    found = fit(observations, CORES)
    assert found.observations == 2 and not found.well_determined
    # Two random members: the sequential penalty plays no part, it keeps its default.
    assert found.undetermined == ("sequential_penalty",)
    assert found.after.sequential_penalty == DEFAULT_CONSTANTS.sequential_penalty
    document = _document(found, pair)
    assert any("fitted on 2 observations" in n and "not yet well determined" in n
               for n in document.notes)  # fmt: skip
    assert any("no pair depends on sequential_penalty" in n for n in document.notes)


def test_model_constants_reach_predict_and_the_placement_search():
    a, b = profile("a", 30.0), profile("b", 10.0)
    default = predict([a, b], ["a", "b"], CORES)
    assert default == predict([a, b], ["a", "b"], CORES, constants=DEFAULT_CONSTANTS)
    mine = ModelConstants(queue_weight=1.0, sequential_penalty=0.0, model_error=0.05)
    got = predict([a, b], ["a", "b"], CORES, constants=mine)
    assert got[0].normalized == pytest.approx(1 / (1 + 1.0 * 0.1))
    assert got[1].normalized == pytest.approx(1 / (1 + 1.0 * 0.3))
    assert got[0].uncertainty == pytest.approx(0.05)
    seq, rnd = profile("seq", 60.0, sequential=True), profile("rnd", 60.0)
    no_penalty = predict([seq, rnd], ["seq", "rnd"], CORES, constants=mine)
    assert no_penalty[0].normalized == pytest.approx(0.5 / 0.6)  # as two of a kind
    members = [Member("a", a), Member("b", b)]
    shared = evaluate(members, {"a": "d", "b": "d"}, CORES, mine)
    assert shared.predictions["a"].normalized == pytest.approx(got[0].normalized)
    advice = advise(members, ["d1", "d2"], "fairness", CORES, mine)
    assert advice.best.predictions["a"].uncertainty == pytest.approx(0.05)


def _on(name: str, backend: dict) -> Profile:
    made = profile(name, 30.0)
    application = made.application.model_copy(update={"backend": backend})
    return made.model_copy(update={"application": application})


def test_profiles_on_different_backends_are_refused_naming_the_difference():
    on = {
        "a": _on("a", {"name": "x", "type": "local-dir", "path": "/d1"}),
        "b": _on("b", {"name": "y", "type": "local-dir", "path": "/d2"}),
    }
    with pytest.raises(UsageError, match=r"a and b differ in `path` \('/d1'.*different backends"):
        shared_backend(on)
    same = {"a": on["a"], "c": _on("c", {"name": "z", "type": "local-dir", "path": "/d1"})}
    assert shared_backend(same) == {"type": "local-dir", "path": "/d1"}  # the name aside


def _document(found, pairs):
    measured = {p.label: [MemberOutcome(n, "device", 0.8, 0.05) for n in p.names] for p in pairs}
    used = [
        ProfileUsed(name=n, path=f"/p/{n}.json", application=n, measured="t", results="/r")
        for p in pairs for n in p.names
    ]  # fmt: skip
    return calibration_document(found, pairs, measured, CORES, {"type": "local-dir"},
                                Path("/r/pairs"), used, "now")  # fmt: skip


def test_a_calibration_file_round_trips_and_bad_ones_are_refused_naming_the_file(tmp_path):
    pairs = _pairs()
    found = fit(_observed(pairs, ModelConstants(0.5, 0.8)), CORES)
    path = tmp_path / "calibration.json"
    _document(found, pairs).dump(path)
    loaded = load_calibration(path)
    assert json.loads(path.read_text())["schema"] == "contio-calibration/1"
    assert loaded.model_constants == found.after
    assert [len(p.members) for p in loaded.pairs] == [2, 2, 2]

    def refused(text: str | None, says: str) -> None:
        bad = tmp_path / "bad.json"
        if text is None:
            bad.unlink(missing_ok=True)
        else:
            bad.write_text(text)
        with pytest.raises(CalibrationError) as caught:
            load_calibration(bad)
        assert str(bad) in str(caught.value) and says in str(caught.value)

    document = json.loads(path.read_text())
    refused(None, "cannot read it")
    refused("{not json", "not JSON")
    refused("[]", "a JSON object")
    refused(json.dumps({**document, "schema": "contio-calibration/0"}), "schema")
    refused(json.dumps({**document, "schema": "contio-profile/1"}), "contio profile --pairs")
    negative = {**document, "constants": {**document["constants"], "after": {
        **document["constants"]["after"], "queue_weight": -1}}}  # fmt: skip
    refused(json.dumps(negative), "constants.after.queue_weight")
    refused(json.dumps({k: v for k, v in document.items() if k != "pairs"}), "pairs")


def test_under_the_fifo_law_the_fair_laws_constants_are_said_to_play_no_part():
    writer = profile("w", 99.0, sequential=True, iops=191.0, depth=1.45)
    reader = profile("r", 86.0, iops=17_600.0, depth=0.86)
    pair = pairs_of({"w": writer, "r": reader})
    found = fit(_observed(pair, DEFAULT_CONSTANTS), CORES)
    assert found.after.sharing == "fifo" and found.error_after == 0.0
    document = _document(found, pair)
    assert any("sequential_penalty" in n and "the fifo law" in n for n in document.notes)
