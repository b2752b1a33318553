"""The order an experiment's repetitions run in (`order: {mode, seed}`): fixed, random,
interleaved rounds or counterbalanced passes, always a load group's cells together so
one load serves them (`contio.experiment.matrix.load_groups`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from contio.experiment.matrix import Cell, load_groups
from contio.experiment.parts import CellOrder


def describe_order(order: CellOrder) -> str:
    """`random, seed 42`, `interleaved rounds, seed 7`, `random, seed drawn when the run
    starts`, `fixed (…)`; `auto` before the run resolves it."""
    if order.mode == "fixed":
        return "fixed (the cells' own order)"
    seed = "drawn when the run starts" if order.seed is None else str(order.seed)
    name = {
        "interleaved": "interleaved rounds",
        "counterbalanced": "counterbalanced passes (ABBA)",
        "auto": "auto (interleaved rounds, counterbalanced passes or random)",
    }
    return f"{name.get(order.mode, order.mode)}, seed {seed}"


def _shuffled_groups(groups: list[list[Cell]], rng: random.Random) -> list[list[Cell]]:
    """The groups in an order drawn from `rng`, each group's read-only cells, then its
    writing cells, each part in an order drawn from `rng` too."""
    groups = list(groups)
    rng.shuffle(groups)
    drawn = []
    for group in groups:
        reading = [c for c in group if c.read_only]
        writing = [c for c in group if not c.read_only]
        rng.shuffle(reading)
        rng.shuffle(writing)
        drawn.append(reading + writing)
    return drawn


def _reversed_round(groups: list[list[Cell]]) -> list[list[Cell]]:
    """The groups in reverse order, each group's read-only cells and writing cells each
    reversed (read-only cells stay first: one load still serves them)."""
    flipped = []
    for group in reversed(groups):
        reading = [c for c in group if c.read_only]
        writing = [c for c in group if not c.read_only]
        flipped.append(reading[::-1] + writing[::-1])
    return flipped


def interleaved_rounds(cells: list[Cell], seed: int) -> Iterator[list[Cell]]:
    """The rounds of an `interleaved` order, endlessly: each round lists every cell once.

    Rounds come in pairs. The first round of a pair draws its order from `seed` as a
    `random` order does (the load groups shuffled, inside each its read-only cells, then
    its writing cells, each shuffled); the second runs it backwards (groups reversed and
    the cells inside each part reversed). Within a pair every group, and every cell of
    a group, sits at mirrored positions, so a drift that grows steadily over the run (a
    filling page cache, a warming device, compaction debt) adds the same to every cell
    of the pair; fresh draws per pair keep any one order from repeating through the run.
    The runner gives each round one repetition of every cell whose stopping rule still
    wants one; the rounds do not depend on which cells that is, so a resumed run draws
    the same ones.
    """
    rng = random.Random(seed)  # an experiment's order, not a secret
    groups = load_groups(sorted(cells, key=lambda c: c.index))
    while True:
        drawn = _shuffled_groups(groups, rng)
        yield [c for group in drawn for c in group]
        yield [c for group in _reversed_round(drawn) for c in group]


def counterbalanced_passes(cells: list[Cell], seed: int) -> tuple[list[Cell], list[Cell]]:
    """The two passes of a `counterbalanced` order: the first is a `random` order drawn
    from `seed`, the second the same backwards (load groups reversed, and the read-only
    and writing cells inside each group reversed).

    Each cell runs the first half of its repetitions in the first pass and the rest in
    the second (`first_pass_repetitions`), back to back, so a load group is loaded once
    per pass (twice in all, where `interleaved` loads it every round). The passes mirror
    each other (A B C | C B A), so a drift that grows steadily over the run adds the same
    to every group: the classic ABBA design, at the price of one more load per group.
    """
    rng = random.Random(seed)  # an experiment's order, not a secret
    drawn = _shuffled_groups(load_groups(sorted(cells, key=lambda c: c.index)), rng)
    first = [c for group in drawn for c in group]
    return first, [c for group in _reversed_round(drawn) for c in group]


def first_pass_repetitions(repetitions: int) -> int:
    """Of a cell's `repetitions` (its fewest, under an adaptive rule), how many it runs in
    a counterbalanced order's first pass: half, rounded up (the second pass runs the rest
    and whatever an adaptive rule adds)."""
    return (repetitions + 1) // 2


def execution_order(cells: list[Cell], mode: str, seed: int | None) -> list[Cell]:
    """The order `cells` (from `expand`, in index order) run in under `CellOrder`'s `mode`.

    `fixed`: index order. `random`: the load groups in an order shuffled from `seed`,
    and inside each group its read-only cells, then its writing cells, each shuffled;
    each cell runs all its repetitions before the next starts. `interleaved`: the first
    round's order (`interleaved_rounds`; every round after it has its own).
    `counterbalanced`: the first pass's order (`counterbalanced_passes`; the second
    pass runs it backwards).
    Load groups stay whole because one load serves a group's read-only cells (shuffling
    across groups would reload the data, and start database servers, for every cell);
    backends are provisioned once each and kept to the end of the run whatever the order
    (`contio.run.backend_pool`), so interleaving backend levels costs nothing. The
    cells' indexes and keys (the results layout) do not change, only when they run.
    """
    if mode == "fixed":
        return sorted(cells, key=lambda c: c.index)
    if seed is None:
        raise ValueError(f"a {mode} cell order needs a seed")
    if mode == "interleaved":
        return next(interleaved_rounds(cells, seed))
    if mode == "counterbalanced":
        return counterbalanced_passes(cells, seed)[0]
    rng = random.Random(seed)  # an experiment's order, not a secret
    groups = _shuffled_groups(load_groups(sorted(cells, key=lambda c: c.index)), rng)
    return [c for group in groups for c in group]


def repetition_sequence(
    cells: list[Cell], mode: str, seed: int | None, repetitions: int
) -> list[Cell]:
    """The repetitions of `cells` in the order they would run if each took `repetitions`
    (one entry per repetition): a cell's back to back under `fixed` and `random`, round
    after round under `interleaved`, in two mirrored passes under `counterbalanced`.
    What `contio plan` prices loads from."""
    if mode not in ("interleaved", "counterbalanced"):
        return [c for c in execution_order(cells, mode, seed) for _ in range(repetitions)]
    if seed is None:
        raise ValueError(f"a {mode} cell order needs a seed")
    if mode == "counterbalanced":
        first, second = counterbalanced_passes(cells, seed)
        half = first_pass_repetitions(repetitions)
        return [c for c in first for _ in range(half)] + [
            c for c in second for _ in range(repetitions - half)
        ]
    rounds = interleaved_rounds(cells, seed)
    return [c for _ in range(repetitions) for c in next(rounds)]
