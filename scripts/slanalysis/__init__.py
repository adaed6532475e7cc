"""sparselocal's analysis of run-experiment logs: one data model, small modules, no cycle.

Layers (a module imports only from its own line or the lines above it, and there is no import
cycle; tests/scripts/analysis/test_imports.py reads this list and enforces both):

  logfiles notes formatting network v3_rules reading files, warnings, number formats, ring model,
                                             the pre-registered v3 rules (plain numbers)
  config flops profiles comm_model           configs, FLOP counter, hardware profiles, old logs'
                                             modeled times brought to the current comm model
  experiment                                 Experiment: one run folder, read once
  clock                                      RunClock: the virtual clock of one run
  variants targets references bootstrap      seed variants, targets, baselines, resampling
  hits convergence                           where a variant reaches a target; the S vs 2S check
  claims_v1 claims_v2 maps summary           the tables (markdown); the clock validation
  clock_validation
  target_sweep virtual_time                  speed-up vs target (v3); virtual time of rows
  claims_v3 claims_v3_text phase4            the v3 verdicts per claim (pre-registered rules);
                                             phase 4's scaling and drop-ratio readings
  curves map_figure target_figure lr_figure  figures (matplotlib passed in; imported lazily)
  budget_figure scaling_figure
  commands/* __main__                        command lines (scripts/*.py, scripts/analyze.py)

Pure Python except the figure modules, which get pyplot from their caller: everything but the
figures runs on any python3 without numpy or matplotlib."""
