"""The web app's job limits default to the job store's (web/jobs.py says them once), and
/api/config reports them as it always has: whole seconds."""

from __future__ import annotations

import json

from starlette.testclient import TestClient

from ctxmill.web.app import create_app
from ctxmill.web.jobs import JobStore


def test_config_reports_the_job_store_defaults(tmp_path):
    app = create_app(jobs_root=tmp_path / "jobs", mount_mcp=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        raw = c.get("/api/config").text
    got = json.loads(raw)
    assert (got["workers"], got["job_ttl_seconds"], got["job_timeout_seconds"]) == (2, 3600, 600)
    assert '"job_ttl_seconds":3600,' in raw and '"job_timeout_seconds":600,' in raw  # not 3600.0
    store = JobStore(tmp_path / "direct", prestart=False)
    try:
        assert (store.workers, store.ttl, store.max_jobs, store.job_timeout) == (2, 3600, 100, 600)
    finally:
        store.close()
