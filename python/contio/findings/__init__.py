"""What a run says about a paper's findings, and whether the run could say it.

- `validity`: per-cell checks, measured from the run's own samples, that tell when a
  cell measured the wrong thing (the CPU instead of storage, the page cache instead of
  the device, an order effect instead of the treatment);
- the claims a spec lists under `findings:` are evaluated into verdicts (reproduced,
  contradicted, inconclusive, not valid here) for the report, `contio results` and
  `findings.json`.
"""
