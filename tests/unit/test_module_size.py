"""No module of ``mneme``, ``mneme_local`` or the Python client (``mneme_client``; its models are generated from
the OpenAPI document, so they are not counted) over 300 lines (issue 34: modules small and named for their job). A
module that grows past it is split by concern; the test names each one."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_import_graph import PACKAGES

MAX_LINES = 300
CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python" / "src" / "mneme_client"
GENERATED = {CLIENT / "models.py"}


def _over(limit: int) -> dict[str, int]:
    sizes = {
        str(path.relative_to(root.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for root in [*PACKAGES.values(), CLIENT]
        for path in root.rglob("*.py")
        if path not in GENERATED
    }
    return {name: lines for name, lines in sorted(sizes.items()) if lines > limit}


def test_no_module_is_over_300_lines() -> None:
    assert _over(MAX_LINES) == {}


def test_the_check_sees_a_long_module() -> None:
    assert _over(MAX_LINES // 3)  # several modules are over 100 lines
