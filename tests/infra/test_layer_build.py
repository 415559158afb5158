"""The layer build prunes Babel to its date data; every locale formats dates and times exactly as before."""

from __future__ import annotations

import importlib.util
import shutil
from datetime import UTC, datetime
from pathlib import Path

import babel
import pytest
from babel import dates, localedata

from tests.support.sam_template import ROOT, resources

MOMENT = datetime(2026, 11, 30, 21, 5, tzinfo=UTC)


def _prune_module():
    spec = importlib.util.spec_from_file_location("prune_babel", ROOT / "layers" / "mneme" / "prune_babel.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _formatted(locales: list[str]) -> dict[str, tuple[str, str, str]]:
    localedata._cache.clear()
    return {
        name: (
            dates.format_date(MOMENT, format="full", locale=name),
            dates.format_time(MOMENT, format="HH:mm", locale=name, tzinfo=MOMENT.tzinfo),
            dates.format_date(MOMENT, format="long", locale=name),
        )
        for name in locales
    }


@pytest.fixture(scope="module")
def pruned_dir(tmp_path_factory) -> Path:
    target: Path = tmp_path_factory.mktemp("babel") / "locale-data"
    shutil.copytree(Path(babel.__file__).parent / "locale-data", target)
    assert _prune_module().main(["prune_babel", str(target)]) == 0
    return target


def test_every_locale_formats_dates_identically_after_pruning(pruned_dir, monkeypatch) -> None:
    # Given every locale Babel knows, formatted with the full data
    locales = sorted(localedata.locale_identifiers())
    before = _formatted(locales)
    # When Babel reads the pruned files instead
    monkeypatch.setattr(localedata, "_dirname", str(pruned_dir))
    after = _formatted(locales)
    localedata._cache.clear()
    # Then nothing changed, for all of them
    assert len(locales) > 700
    assert after == before


def test_pruning_keeps_a_tenth_or_less(pruned_dir) -> None:
    original = sum(p.stat().st_size for p in (Path(babel.__file__).parent / "locale-data").glob("*.dat"))
    pruned = sum(p.stat().st_size for p in pruned_dir.glob("*.dat"))
    assert pruned * 5 < original


def test_the_layer_is_built_by_its_makefile() -> None:
    layer = resources("AWS::Serverless::LayerVersion")["MnemeLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    makefile = (ROOT / layer["Properties"]["ContentUri"] / "Makefile").read_text()
    assert "build-MnemeLayer:" in makefile and "prune_babel.py" in makefile and "--no-deps" in makefile
    assert "compileall" in makefile and "unchecked-hash" in makefile  # bytecode for 3.13, never stale
