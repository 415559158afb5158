"""Deploy blockers, checked on the template CloudFormation receives (translated by aws-sam-translator, offline).

* Two stacks in one account: no resource may carry a physical name that is not derived from the stack name
  (or from a parameter without a default that samconfig.toml sets per stack) — a fixed name makes the second
  ``sam deploy`` fail with "already exists" (aws/serverless-application-model#3109 for ScheduleV2).
* ``Rules`` may use only ``Ref`` and the rule functions (CloudFormation rejects anything else, e.g. ``Fn::Join``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.sam_template import ROOT, load_template
from tests.support.sam_translate import translated

# The property that holds a resource's physical name, for every type that has one and may appear here.
PHYSICAL_NAME = {
    "AWS::ApiGatewayV2::Api": "Name",
    "AWS::CloudFront::Function": "Name",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::Cognito::UserPool": "UserPoolName",
    "AWS::DynamoDB::Table": "TableName",
    "AWS::Events::EventBus": "Name",
    "AWS::Events::Rule": "Name",
    "AWS::IAM::ManagedPolicy": "ManagedPolicyName",
    "AWS::IAM::Role": "RoleName",
    "AWS::KMS::Alias": "AliasName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::Lambda::LayerVersion": "LayerName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::OpenSearchServerless::AccessPolicy": "Name",
    "AWS::OpenSearchServerless::Collection": "Name",
    "AWS::OpenSearchServerless::CollectionGroup": "Name",
    "AWS::OpenSearchServerless::SecurityPolicy": "Name",
    "AWS::S3::Bucket": "BucketName",
    "AWS::S3Vectors::VectorBucket": "VectorBucketName",
    "AWS::Scheduler::Schedule": "Name",
    "AWS::Scheduler::ScheduleGroup": "Name",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SSM::Parameter": "Name",
    "AWS::StepFunctions::StateMachine": "StateMachineName",
}
# Names that live inside another resource of the same stack (so two stacks never meet), and properties
# ending in "Name" that are not a resource's own name (references to another resource, metric names).
SCOPED = {
    ("AWS::ApiGatewayV2::Authorizer", "Name"),
    ("AWS::ApiGatewayV2::Stage", "StageName"),
    ("AWS::Cognito::UserPoolClient", "ClientName"),
    ("AWS::Cognito::UserPoolGroup", "GroupName"),
    ("AWS::S3Vectors::Index", "IndexName"),
}
NOT_A_NAME = {
    ("AWS::CloudWatch::Alarm", "MetricName"),
    ("AWS::Events::Rule", "EventBusName"),
    ("AWS::Lambda::EventInvokeConfig", "FunctionName"),
    ("AWS::Lambda::EventSourceMapping", "FunctionName"),
    ("AWS::Lambda::Permission", "FunctionName"),
    ("AWS::OpenSearchServerless::Collection", "CollectionGroupName"),
}
# Rule-specific intrinsic functions (AWSCloudFormation intrinsic-function-reference-rules); plus Ref.
RULE_FUNCTIONS = {
    "Fn::And",
    "Fn::Contains",
    "Fn::EachMemberEquals",
    "Fn::EachMemberIn",
    "Fn::Equals",
    "Fn::Not",
    "Fn::Or",
    "Fn::RefAll",
    "Fn::ValueOf",
    "Fn::ValueOfAll",
}
PSEUDO_PARAMETERS = {"AWS::AccountId", "AWS::Partition", "AWS::Region", "AWS::StackName", "AWS::URLSuffix"}


def _resources() -> dict[str, dict[str, Any]]:
    resources: dict[str, dict[str, Any]] = translated()["Resources"]
    return resources


def _named() -> list[tuple[str, str, Any]]:
    """(logical id, property, value) of every physical name the translated template sets."""
    found = []
    for logical_id, resource in _resources().items():
        prop = PHYSICAL_NAME.get(resource["Type"])
        value = (resource.get("Properties") or {}).get(prop) if prop else None
        if prop is not None and value is not None:
            found.append((logical_id, prop, value))
    return found


def _samconfig_overrides() -> dict[str, tuple[str, dict[str, str]]]:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    found = {}
    for env, sections in config.items():
        if not isinstance(sections, dict) or "deploy" not in sections:
            continue
        stack = sections["global"]["parameters"]["stack_name"]
        text = sections["deploy"]["parameters"].get("parameter_overrides", "")
        found[env] = (stack, dict(pair.split("=", 1) for pair in text.split()))
    return found


def _per_stack_parameters() -> set[str]:
    """Parameters without a default that every samconfig environment sets, to a distinct value per stack."""
    parameters = load_template()["Parameters"]
    chosen = set()
    for name, spec in parameters.items():
        if "Default" in spec:
            continue
        values: dict[str, set[str]] = {}
        for stack, overrides in _samconfig_overrides().values():
            if name in overrides:
                values.setdefault(overrides[name], set()).add(stack)
        if values and all(len(stacks) == 1 for stacks in values.values()):
            chosen.add(name)
    return chosen


def _name_sources(value: Any) -> Iterator[set[str]]:
    """For each branch a name can take, the parameters and pseudo parameters it is built from."""
    if isinstance(value, str):
        yield set()
    elif isinstance(value, dict) and "Fn::If" in value:
        _condition, when_true, when_false = value["Fn::If"]
        for branch in (when_true, when_false):
            if branch != {"Ref": "AWS::NoValue"}:
                yield from _name_sources(branch)
    elif isinstance(value, dict) and "Ref" in value:
        yield {value["Ref"]}
    elif isinstance(value, dict) and "Fn::Sub" in value:
        sub = value["Fn::Sub"]
        text, variables = (sub, {}) if isinstance(sub, str) else (sub[0], sub[1])
        names = set(re.findall(r"\$\{([^}!.]+)\}", text))
        inner = set().union(*[next(_name_sources(variables[n])) for n in names & set(variables)])
        yield (names - set(variables)) | inner
    elif isinstance(value, dict) and "Fn::Join" in value:
        yield set().union(*[next(_name_sources(part)) for part in value["Fn::Join"][1]])
    else:
        yield {"<unknown>"}


def test_the_translation_expands_every_serverless_resource() -> None:
    kinds = {resource["Type"] for resource in _resources().values()}
    assert not {kind for kind in kinds if kind.startswith("AWS::Serverless::")}
    assert "AWS::Scheduler::Schedule" in kinds  # the redrive schedule, the name of which SAM once fixed


def test_every_property_ending_in_name_is_classified() -> None:
    # a new resource type with a name must be added to PHYSICAL_NAME (checked below) or be shown to be scoped
    unclassified = (
        {
            (resource["Type"], prop)
            for resource in _resources().values()
            for prop in (resource.get("Properties") or {})
            if prop.endswith("Name") and PHYSICAL_NAME.get(resource["Type"]) != prop
        }
        - SCOPED
        - NOT_A_NAME
    )
    assert unclassified == set()


@pytest.mark.parametrize(("logical_id", "prop", "value"), _named(), ids=[n[0] for n in _named()])
def test_no_resource_has_a_name_that_a_second_stack_would_repeat(logical_id: str, prop: str, value: Any) -> None:
    # Given the parameters samconfig.toml sets to a different value for every stack
    per_stack = {"AWS::StackName"} | _per_stack_parameters()
    # Then every form the name can take is built from one of them
    for sources in _name_sources(value):
        assert sources & per_stack, f"{logical_id}.{prop} = {value!r} is the same in every stack"


def test_the_schedules_are_named_by_cloudformation() -> None:
    # the outbox redrive, the sweeper, the memory purge: a fixed name would collide with a second stack's
    schedules = [r for r in _resources().values() if r["Type"] == "AWS::Scheduler::Schedule"]
    assert len(schedules) == 3
    assert all("Name" not in schedule["Properties"] for schedule in schedules)


def test_stack_specific_parameters_have_no_default_and_differ_between_stacks() -> None:
    # the collection's name is account-wide: a default would be shared by every stack that keeps it
    assert "Default" not in load_template()["Parameters"]["CollectionName"]
    assert "CollectionName" in _per_stack_parameters()


def _functions(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, inner in node.items():
            if key == "Ref" or key.startswith("Fn::"):
                yield key, inner
            yield from _functions(inner)
    elif isinstance(node, list):
        for inner in node:
            yield from _functions(inner)


@pytest.mark.parametrize("rule", sorted(load_template().get("Rules", {})))
def test_rules_use_only_rule_functions_and_refs_to_parameters(rule: str) -> None:
    body = translated()["Rules"][rule]
    parameters = set(load_template()["Parameters"]) | PSEUDO_PARAMETERS
    for name, argument in _functions(body):
        assert name == "Ref" or name in RULE_FUNCTIONS, f"{rule} uses {name}, which is not a rule function"
        if name == "Ref":
            assert argument in parameters, f"{rule} refers to {argument}, which is not a parameter"
    assert body["Assertions"] and all(a.get("AssertDescription") for a in body["Assertions"])
