"""Where the `ctxmill` entry point's fast search and index work (entry._where): ROOT resolved, the
--db file, and the team store only without --db (--store, else CTXMILL_STORE, else the project's
[team] store); None hands the command to the full path (no such folder, refused settings)."""

from __future__ import annotations

import os

from ctxmill import entry

URL = "postgresql://team@db.example/code"


def _opts(root, db=None, store=None):
    return {"root": str(root), "db": db, "store": store}


def test_root_that_is_no_folder_goes_to_the_full_path(tmp_path):
    assert entry._where(_opts(tmp_path / "missing")) is None
    (tmp_path / "f.txt").write_text("x")
    assert entry._where(_opts(tmp_path / "f.txt")) is None


def test_db_given_means_no_store(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_STORE", URL)
    root, db, store = entry._where(_opts(tmp_path, db=str(tmp_path / "i.db"), store=URL))
    assert (root, db, store) == (os.path.realpath(tmp_path), os.path.realpath(tmp_path / "i.db"), None)


def test_store_option_then_environment_then_project_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("CTXMILL_STORE", raising=False)
    assert entry._where(_opts(tmp_path))[2] is None
    (tmp_path / ".ctxmill").mkdir()
    (tmp_path / ".ctxmill" / "settings.toml").write_text(f'[team]\nstore = "{URL}/project"\n')
    assert entry._where(_opts(tmp_path))[2] == f"{URL}/project"
    monkeypatch.setenv("CTXMILL_STORE", f" {URL}/env ")
    assert entry._where(_opts(tmp_path))[2] == f"{URL}/env"
    assert entry._where(_opts(tmp_path, store=f"{URL}/option"))[2] == f"{URL}/option"


def test_refused_project_settings_go_to_the_full_path(tmp_path, monkeypatch):
    monkeypatch.delenv("CTXMILL_STORE", raising=False)
    (tmp_path / ".ctxmill").mkdir()
    (tmp_path / ".ctxmill" / "settings.toml").write_text('[team]\nstore = "postgresql://u:secret@db/x"\n')
    assert entry._where(_opts(tmp_path)) is None
    # --db needs no store, so refused settings do not matter there
    assert entry._where(_opts(tmp_path, db=str(tmp_path / "i.db"))) is not None
