"""No module of ``mneme`` or ``mneme_local`` over 300 lines (issue 34: modules small and named for their job). A
module that grows past it is split by concern; the test names each one."""

from __future__ import annotations

from tests.unit.test_import_graph import PACKAGES

MAX_LINES = 300


def _over(limit: int) -> dict[str, int]:
    sizes = {
        str(path.relative_to(root.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for root in PACKAGES.values()
        for path in root.rglob("*.py")
    }
    return {name: lines for name, lines in sorted(sizes.items()) if lines > limit}


def test_no_module_is_over_300_lines() -> None:
    assert _over(MAX_LINES) == {}


def test_the_check_sees_a_long_module() -> None:
    assert _over(MAX_LINES // 3)  # several modules are over 100 lines
