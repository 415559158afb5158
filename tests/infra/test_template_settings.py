"""Every environment variable the template gives a function is a field of the settings model."""

from __future__ import annotations

from mneme.settings import env_names
from tests.support.sam_template import load_template, resources

POWERTOOLS = {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"}
LAMBDA_RUNTIME = {"AWS_LAMBDA_EXEC_WRAPPER"}  # read by the Lambda runtime (the ADOT layer's wrapper), not by mneme


def _function_env_names() -> set[str]:
    names = set(load_template()["Globals"]["Function"].get("Environment", {}).get("Variables", {}))
    for res in resources("AWS::Serverless::Function").values():
        names |= set(res["Properties"].get("Environment", {}).get("Variables", {}))
    return names


def test_every_function_environment_variable_is_a_settings_field() -> None:
    # Given the variables the template sets on functions (Powertools' own excepted)
    names = _function_env_names() - POWERTOOLS - LAMBDA_RUNTIME
    # Then the settings model reads each of them
    assert names, "the template sets no environment"
    assert names - env_names() == set()


def test_tables_have_point_in_time_recovery_where_records_must_survive() -> None:
    tables = resources("AWS::DynamoDB::Table")
    assert tables["AuditTable"]["Properties"]["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
