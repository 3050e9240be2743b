"""benchmarks/deck_truth.py's reading of a Slidev deck (round 36): the held-out deck set's truth for a deck whose
slide titles are HTML <h1> elements and whose slides carry YAML headmatter with `# key:` comment lines."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import deck_truth  # noqa: E402

DECK = """---
# class: gradient
layout: fact
title: A Talk About Things
---

<h1>A Talk About <span class="accent">Things</span><br><Logo /></h1>
<!-- <h1>An older title, commented out</h1> -->

---
layout: center
# layout: two-cols
---

<h1 class="color:accent">🧱 Silos</h1>

<span>P</span>ublish on your own site

---

# Plain heading

```bash
# a shell comment, not a heading
```

## Second level

<!--
## A presenter note heading, never printed
-->
"""


def test_slidev_headings_are_h1_elements_and_atx_lines_outside_headmatter_comments_and_code():
    title, sections = deck_truth.slidev_outline(DECK)
    assert title == "A Talk About Things"
    assert [(s["level"], s["title"]) for s in sections] == [
        (1, "A Talk About Things"), (1, "🧱 Silos"), (1, "Plain heading"), (2, "Second level")]


def test_inline_elements_print_as_their_text():
    _, sections = deck_truth.slidev_outline("<h2><span>P</span>ublish <b>O</b>n your <em>own</em> site</h2>\n")
    assert [s["title"] for s in sections] == ["Publish On your own site"]
