"""End to end through the CLI on the bundled sample: every output, bundle.zip, options."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "samples" / "tidal-caching.txt"
ALL = {"document.md", "metadata.json", "sections.json", "chunks.jsonl", "references.json", "citations.json",
       "graph.json", "graph.graphml", "qa.json", "qa.md", "metrics.json"}


def compile_cli(out: Path, *flags: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "ctxmill.cli", "compile", str(SAMPLE), "-o", str(out), "--json", *flags],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("full") / "out"
    compile_cli(out, "--include-source-text")
    return out


def test_bundle_holds_every_output_and_the_source_text(full):
    names = {p.name for p in full.iterdir()}
    assert ALL | {"bundle.zip"} <= names
    with zipfile.ZipFile(full / "bundle.zip") as z:
        inside = set(z.namelist())
        assert ALL | {"source.txt"} <= inside
        for name in ALL:  # the archive holds the very files that were written
            assert z.read(name) == (full / name).read_bytes()
        src = z.read("source.txt").decode()
    assert "Tidal Caching" in src and "── page 1 ──" in src


def test_source_text_only_when_asked(tmp_path):
    compile_cli(tmp_path / "o")
    with zipfile.ZipFile(tmp_path / "o" / "bundle.zip") as z:
        assert "source.txt" not in z.namelist()


def test_metrics_and_qa_files(full):
    m = json.loads((full / "metrics.json").read_text())
    assert set(m) >= {"stages", "total_seconds", "pages", "pages_per_second", "input_chars", "chunks"}
    assert {"references", "chunks", "citations", "quality"} <= set(m["stages"])
    assert m["chunks"] == len((full / "chunks.jsonl").read_text().splitlines()) > 0
    qa = json.loads((full / "qa.json").read_text())
    assert 0 <= qa["score"] <= 100 and isinstance(qa["checks"], list)
    assert f"Score: {qa['score']}/100" in (full / "qa.md").read_text()


def test_graph_json_and_graphml_agree(full):
    import xml.etree.ElementTree as ET

    g = json.loads((full / "graph.json").read_text())
    kinds = {n["kind"] for n in g["nodes"]}
    assert {"document", "section", "reference"} <= kinds
    ekinds = {e["kind"] for e in g["edges"]}
    assert {"contains", "cites"} <= ekinds
    node_ids = {n["id"] for n in g["nodes"]}
    assert all(e["source"] in node_ids and e["target"] in node_ids for e in g["edges"])
    root = ET.parse(full / "graph.graphml").getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert len(root.findall(".//g:node", ns)) == len(g["nodes"])
    assert len(root.findall(".//g:edge", ns)) == len(g["edges"])


def test_fast_and_no_flags_skip_outputs(tmp_path):
    fast = compile_cli(tmp_path / "fast", "--fast")
    names = set(fast["files"])
    assert "chunks.jsonl" not in names and "citations.json" not in names and "graph.json" not in names
    assert {"document.md", "qa.json", "metrics.json", "bundle.zip"} <= names
    nc = compile_cli(tmp_path / "nc", "--no-chunks")
    assert "chunks.jsonl" not in nc["files"] and "citations.json" in nc["files"]
    ncit = compile_cli(tmp_path / "ncit", "--no-citations")
    assert "references.json" not in ncit["files"] and "chunks.jsonl" in ncit["files"]
    with zipfile.ZipFile(tmp_path / "fast" / "bundle.zip") as z:
        assert "chunks.jsonl" not in z.namelist()


def test_bundle_reads_no_file_whole_and_writes_writestrs_archive(tmp_path, monkeypatch):
    """bundle.zip is made from each output read a piece at a time (issue 26: 98 MB of outputs of
    a 4 MB bibliography were each read whole into memory again), and the archive is byte for byte
    the one zipfile's writestr of each file's bytes makes, deflated level 1, PNGs stored."""
    from _counting import CountedCall
    from ctxmill.compile.options import CompileOptions
    from ctxmill.render import bundle

    folder = tmp_path / "out"
    (folder / "figures").mkdir(parents=True)
    # 3.6 MB: more than three pieces of the copy; text that is not ASCII on the cuts too
    (folder / "references.json").write_text("".join(f'{{"id": "ref-{i}", "raw": "é {i}"}}\n' for i in range(120_000)))
    (folder / "qa.md").write_text("# QA report\n")
    (folder / "figures" / "fig-1.png").write_bytes(bytes(range(256)) * 5000)
    real = Path.read_bytes
    reads = CountedCall(real)
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads(self))
    assert bundle.write(None, folder, CompileOptions()) == ["bundle.zip"]
    assert reads.calls == 0
    monkeypatch.undo()
    want = tmp_path / "want.zip"
    with zipfile.ZipFile(want, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name in ("qa.md", "references.json"):
            info = zipfile.ZipInfo(name, date_time=bundle._EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, (folder / name).read_bytes(), compresslevel=1)
        z.writestr(zipfile.ZipInfo("figures/fig-1.png", date_time=bundle._EPOCH),
                   (folder / "figures" / "fig-1.png").read_bytes(), compress_type=zipfile.ZIP_STORED)
    assert (folder / "bundle.zip").read_bytes() == want.read_bytes()
