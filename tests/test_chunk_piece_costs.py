"""Issue 26, part C (this round): the chunks stage's work per text shape, counted, not timed.

Acceptance criterion, fixed before any change was measured (05:58 UTC, start commit bcea6c2):
- every output file identical to bcea6c2 (metrics.json and bundle.zip aside) on the corpus
  (the 17 papers, the sample PDF and its OCR text, the 10 OCR-engine texts: each compiled
  through both trees, output folders diffed) and on the 18 fuzz shapes at 1 MB
  (benchmarks/fuzz.py's text_shape);
- a change stays only if the chunks stage's CPU (cProfile / process_time at 4 MB, in process)
  falls against bcea6c2 in the same run, no shape's MB per CPU-s through the command
  (fuzz.py --scaling-only --repeat 3 --stat min --peer /work/peer-s20/src) falls below 0.97 of
  the peer's in the same run, and prose is not slower;
- token counts and offsets stay exactly the tokenizer's (tests/test_linear_cost.py and the
  tests here hold them together); conservation stays whole.
"""
