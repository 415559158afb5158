"""Globals, alarms, outputs and samconfig.toml."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from tests.support.sam_template import ROOT, load_template, resources

REQUIRED_OUTPUTS = {
    "ApiUrl",
    "UserPoolId",
    "UserPoolClientId",
    "StateMachineArn",
    "MemoryQueueUrl",
    "CollectionEndpoint",
}


def _alarms() -> dict[str, dict[str, Any]]:
    return {name: res["Properties"] for name, res in resources("AWS::CloudWatch::Alarm").items()}


def test_globals_set_powertools_and_active_tracing() -> None:
    function = load_template()["Globals"]["Function"]
    env = function["Environment"]["Variables"]
    assert {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL"} <= set(env)
    assert function["Tracing"] == "Active"


def test_alarms_watch_the_dead_letter_queues_failed_executions_and_function_errors() -> None:
    watched = {(a["Namespace"], a["MetricName"], str(a["Dimensions"][0]["Value"])): a for a in _alarms().values()}
    assert ("AWS/SQS", "ApproximateNumberOfMessagesVisible", str({"Fn::GetAtt": ["MemoryDLQ", "QueueName"]})) in watched
    assert ("AWS/States", "ExecutionsFailed", str({"Ref": "AgentRunStateMachine"})) in watched
    assert ("AWS/Lambda", "Errors", str({"Ref": "RunFunction"})) in watched
    for alarm in _alarms().values():
        assert alarm["Threshold"] == 0
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert alarm["TreatMissingData"] == "notBreaching"
        assert alarm["AlarmActions"] == {
            "Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]
        }


def test_the_outputs_name_what_a_client_and_an_operator_need() -> None:
    outputs = load_template()["Outputs"]
    assert set(outputs) >= REQUIRED_OUTPUTS
    assert outputs["UserPoolId"]["Condition"] == "CreateUserPool"


def test_every_parameter_and_condition_is_used() -> None:
    template = load_template()
    text = (ROOT / "template.yaml").read_text()
    for name in template["Parameters"]:
        assert re.search(rf"(!Ref {name}\b|\$\{{{name}\}}|Ref: {name}\b)", text), name
    for name in template["Conditions"]:
        uses = len(re.findall(rf"\b{name}\b", text))
        assert uses >= 2, name


def test_samconfig_has_default_dev_and_prod_environments() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    parameters = set(load_template()["Parameters"])
    assert {"default", "dev", "prod"} <= set(config)
    for env in ("default", "dev", "prod"):
        assert config[env]["global"]["parameters"]["stack_name"]
        deploy = config[env]["deploy"]["parameters"]
        assert "CAPABILITY_IAM" in deploy["capabilities"]
        overrides = dict(pair.split("=", 1) for pair in deploy["parameter_overrides"].split())
        assert set(overrides) <= parameters, env
    prod = dict(pair.split("=", 1) for pair in config["prod"]["deploy"]["parameters"]["parameter_overrides"].split())
    assert prod["Stage"] == "prod"
    assert prod["StandbyReplicas"] == "ENABLED"
    assert config["prod"]["deploy"]["parameters"]["confirm_changeset"] is True
    stacks = {config[env]["global"]["parameters"]["stack_name"] for env in ("dev", "prod")}
    assert len(stacks) == 2
