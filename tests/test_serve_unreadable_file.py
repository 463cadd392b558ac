"""A served file that is there but cannot be read is a file that does not load (422), not a name
that names nothing (404).

Found by hunt 13i: a link that loops in the served folder was answered 404 "cannot read
loop1.yaml" while a hint listed `loop1` among the server's names, and a pipe there was 422. Only
a file that is not there (a dangling link too) names nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from engine.serve.app import create_app  # noqa: E402


def test_a_looping_link_is_422_and_a_dangling_one_404(tmp_path: Path) -> None:
    (tmp_path / "loop1.yaml").symlink_to("loop1.yaml")
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    with TestClient(create_app(rulesets=tmp_path)) as c:
        looped = c.get("/api/rulesets/loop1")
        assert looped.status_code == 422, looped.text
        [d] = looped.json()["error"]["diagnostics"]
        assert d["code"] == "RC001" and d["message"].startswith("cannot read loop1.yaml: "), d
        gone = c.get("/api/rulesets/gone")
        assert gone.status_code == 404, gone.text
