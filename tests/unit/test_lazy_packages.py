"""A re-exporting package made lazy (mneme.lazy_packages) loads a name's submodule on first use, and only a pure
re-export is ever replaced."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mneme.lazy_packages import PACKAGES, exports, install

PURE = '''"""A package that re-exports."""

from __future__ import annotations

from .heavy import Heavy, make as build
from lazypkg.light import Light

__all__ = ["Heavy", "build", "Light"]
'''


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(PURE)
    (root / "heavy.py").write_text("class Heavy: ...\n\ndef make() -> Heavy:\n    return Heavy()\n")
    (root / "light.py").write_text("class Light: ...\n")
    (root / "other.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [n for n in sys.modules if n == "lazypkg" or n.startswith("lazypkg.")]:
        del sys.modules[name]


def test_a_re_export_maps_each_name_to_its_submodule_and_attribute() -> None:
    found = exports(PURE)
    assert found is not None
    assert found.names == {
        "Heavy": (".heavy", "Heavy"),
        "build": (".heavy", "make"),
        "Light": ("lazypkg.light", "Light"),
    }
    assert [type(stmt).__name__ for stmt in found.rest] == ["Expr", "Assign"]  # the docstring and __all__


@pytest.mark.parametrize(
    "statement",
    ["from .heavy import *", "from . import heavy", "ALIAS = Heavy", "Light.extra = 1", "def f():\n    return build()"],
)
def test_an_init_whose_deferral_could_change_what_it_does_is_not_made_lazy(statement: str) -> None:
    assert exports(PURE + statement + "\n") is None


@pytest.mark.parametrize("statement", ["import os", "VERSION = (1, 2)", "def helper():\n    return 1", "X: int = 1"])
def test_an_init_statement_that_uses_no_re_exported_name_keeps_the_package_lazy(statement: str) -> None:
    found = exports(PURE + statement + "\n")
    assert found is not None and len(found.rest) == 3


def test_an_installed_package_imports_a_submodule_only_when_its_name_is_first_used(package: Path) -> None:
    assert install("lazypkg") is True
    lazypkg = importlib.import_module("lazypkg")
    assert "lazypkg.heavy" not in sys.modules
    assert lazypkg.build().__class__ is lazypkg.Heavy  # the renamed export resolves too
    assert "lazypkg.heavy" in sys.modules and "lazypkg.light" not in sys.modules
    from lazypkg import Light  # type: ignore[import-not-found]

    assert Light is importlib.import_module("lazypkg.light").Light


def test_an_installed_package_keeps_its_submodules_and_attributes(package: Path) -> None:
    install("lazypkg")
    from lazypkg import other  # a submodule the __init__ does not name

    lazypkg = importlib.import_module("lazypkg")
    assert other.VALUE == 7
    assert lazypkg.__path__ == [str(package)]
    assert lazypkg.__file__ == str(package / "__init__.py")
    assert lazypkg.__all__ == ["Heavy", "build", "Light"]
    assert {"Heavy", "build", "Light", "other"} <= set(dir(lazypkg))


def test_a_name_the_package_does_not_export_is_an_attribute_error(package: Path) -> None:
    install("lazypkg")
    lazypkg = importlib.import_module("lazypkg")
    with pytest.raises(AttributeError, match="no attribute 'Missing'"):
        _ = lazypkg.Missing


def test_the_init_statements_that_are_not_re_exports_run_when_the_package_is_installed(package: Path) -> None:
    (package / "__init__.py").write_text(PURE + "import json\nVERSION = json.dumps([1, 2])\n")
    assert install("lazypkg") is True
    lazypkg = importlib.import_module("lazypkg")
    assert lazypkg.VERSION == "[1, 2]"
    assert "lazypkg.heavy" not in sys.modules


def test_a_package_whose_init_uses_what_it_re_exports_is_left_to_load_as_usual(package: Path) -> None:
    (package / "__init__.py").write_text(PURE + "DEFAULT = build()\n")
    assert install("lazypkg") is False
    assert isinstance(importlib.import_module("lazypkg").DEFAULT, importlib.import_module("lazypkg.heavy").Heavy)
    assert "lazypkg.light" in sys.modules  # its __init__ ran: every submodule it names was imported


def test_a_package_already_imported_is_not_replaced(package: Path) -> None:
    imported = importlib.import_module("lazypkg")
    assert install("lazypkg") is False
    assert sys.modules["lazypkg"] is imported


def test_a_plain_module_is_not_a_package_to_make_lazy(package: Path) -> None:
    assert install("lazypkg.other") is False


def test_powertools_packages_listed_here_are_still_pure_re_exports() -> None:
    # a Powertools upgrade that gives one of them a statement with an effect would silently make it eager again
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        found = exports(Path(spec.origin).read_text())
        assert found is not None and found.names, name
