"""Statistics over repetitions, one idea per module (the papers: docs/papers.md).

- `interval`: mean, standard deviation, Student t confidence interval;
- `ttest`: Welch and paired t-tests in the layout of paper 002's Table 1;
- `relative`: relative difference against a baseline with a Fieller interval (paper 000);
- `fairness`: degradation against standalone and Jain's index for mixes (paper 003);
- `saturation`, `valley`: where scaling stops adding throughput, and where it dips
  (paper 003);
- `sentence`: any of these as a sentence for a report.
"""

from contio.stats.fairness import (
    Degradation,
    MixFairness,
    degradation,
    fairness_of,
    jain_index,
    mix_fairness,
)
from contio.stats.interval import ConfidenceInterval, confidence_interval, mean, stdev
from contio.stats.relative import (
    RelativeDifference,
    against_baseline,
    paired_relative_difference,
    relative_difference,
)
from contio.stats.saturation import Saturation, saturation_point
from contio.stats.sentence import (
    degradation_sentence,
    fairness_sentence,
    relative_sentence,
    saturation_sentence,
    t_test_sentence,
    valley_sentence,
)
from contio.stats.ttest import TTestResult, format_p, paired_t_test, welch_t_test
from contio.stats.valley import Valley, find_valley

__all__ = [
    "ConfidenceInterval",
    "Degradation",
    "MixFairness",
    "RelativeDifference",
    "Saturation",
    "TTestResult",
    "Valley",
    "against_baseline",
    "confidence_interval",
    "degradation",
    "degradation_sentence",
    "fairness_of",
    "fairness_sentence",
    "find_valley",
    "format_p",
    "jain_index",
    "mean",
    "mix_fairness",
    "paired_relative_difference",
    "paired_t_test",
    "relative_difference",
    "relative_sentence",
    "saturation_point",
    "saturation_sentence",
    "stdev",
    "t_test_sentence",
    "valley_sentence",
    "welch_t_test",
]
