"""Every environment variable the template gives a function is a field of the settings model."""

from __future__ import annotations

from typing import Any

import pytest

from mneme.settings import env_names
from tests.support.sam_template import load_template, resources

POWERTOOLS = {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"}
LAMBDA_RUNTIME = {"AWS_LAMBDA_EXEC_WRAPPER"}  # read by the Lambda runtime (the ADOT layer's wrapper), not by mneme
LIBRARIES = {"PYDANTIC_DISABLE_PLUGINS"}  # read by pydantic


def _function_env_names() -> set[str]:
    names = set(load_template()["Globals"]["Function"].get("Environment", {}).get("Variables", {}))
    for res in resources("AWS::Serverless::Function").values():
        names |= set(res["Properties"].get("Environment", {}).get("Variables", {}))
    return names


def test_every_function_environment_variable_is_a_settings_field() -> None:
    # Given the variables the template sets on functions (Powertools', the runtime's and pydantic's excepted)
    names = _function_env_names() - POWERTOOLS - LAMBDA_RUNTIME - LIBRARIES
    # Then the settings model reads each of them
    assert names, "the template sets no environment"
    assert names - env_names() == set()


def test_tables_have_point_in_time_recovery_where_records_must_survive() -> None:
    tables = resources("AWS::DynamoDB::Table")
    assert tables["AuditTable"]["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]


def _plugin_scans(monkeypatch: pytest.MonkeyPatch, value: str | None) -> int:
    import importlib.metadata

    from pydantic.plugin import _loader

    scans: list[int] = []
    real = importlib.metadata.distributions

    def distributions(*args: Any, **kwargs: Any) -> Any:
        scans.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(importlib.metadata, "distributions", distributions)
    monkeypatch.setattr(_loader, "_plugins", None)  # pydantic caches the scan per process
    if value is None:
        monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    else:
        monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", value)
    _loader.get_plugins()
    return len(scans)


def test_the_functions_keep_pydantic_from_scanning_the_installed_packages_for_plugins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value = load_template()["Globals"]["Function"]["Environment"]["Variables"]["PYDANTIC_DISABLE_PLUGINS"]
    assert _plugin_scans(monkeypatch, value) == 0
    assert _plugin_scans(monkeypatch, None) == 1  # what a first validator build does without it
