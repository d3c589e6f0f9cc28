"""What a built package holds: every module (and so every package folder) and every
data file (the page's stylesheet and script, the shipped JSON schemas, the rules' descriptions), and the
installed package finds the page's assets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO


def test_the_built_package_holds_every_module_and_finds_its_page_assets(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "replay", source / "replay", ignore=shutil.ignore_patterns("__pycache__"))
    built = tmp_path / "built"
    # setuptools' build_py is what a wheel is made of: packages found, package data copied.
    proc = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py",
                           "--build-lib", str(built)], cwd=source, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    wanted = {p.relative_to(REPO).as_posix() for p in (REPO / "replay").rglob("*")
              if p.suffix in (".py", ".js", ".css", ".json", ".toml") and "__pycache__" not in p.parts}
    have = {p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()}
    assert wanted - have == set()
    assert {"replay/render/web/page.js", "replay/render/web/page.css", "replay/log/__init__.py"} <= have
    # Imported from the built tree alone, the page reads its assets from there.
    probe = ("import json, replay.render.web.page_assets as a, replay.render.web as w; "
             "print(json.dumps([a.__file__, a.CSS, a.SCRIPT, '<script>' + a.SCRIPT in w.html_page([])]))")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(built)})
    assert proc.returncode == 0, proc.stderr
    where, css, script, inlined = json.loads(proc.stdout)
    assert Path(where).is_relative_to(built)
    assert css == "\n" + (REPO / "replay/render/web/page.css").read_text(encoding="utf-8")
    assert script == "\n" + (REPO / "replay/render/web/page.js").read_text(encoding="utf-8")
    assert inlined
