"""docs/deploy.md says what the template does: every parameter, the regions the rules accept, the cost at
rest of the collection each samconfig environment creates, the service-linked role; no stale statements."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.support.sam_template import ROOT, load_template

DEPLOY = (ROOT / "docs" / "deploy.md").read_text()
OCU_HOUR_USD = 0.24  # Amazon OpenSearch Service pricing, Serverless, US East (N. Virginia)
HOURS_PER_MONTH = 730
# the idle floor of a Classic collection by StandbyReplicas (developer guide, serverless-scaling)
FLOOR_OCU = {"DISABLED": 0.5 + 0.5, "ENABLED": 2 * 0.5 + 2 * 0.5}


def _section(title: str) -> str:
    start = DEPLOY.index(f"## {title}")
    end = DEPLOY.find("\n## ", start + 1)
    return DEPLOY[start : end if end != -1 else None]


def _rule_regions(rule: str) -> list[str]:
    (assertion,) = load_template()["Rules"][rule]["Assertions"]
    return list(assertion["Assert"]["Fn::Contains"][0])


@pytest.mark.parametrize("parameter", sorted(load_template()["Parameters"]))
def test_every_parameter_is_documented(parameter: str) -> None:
    assert f"`{parameter}`" in _section("Parameters"), parameter


def test_the_documented_regions_are_the_ones_the_rules_accept() -> None:
    regions = _section("Regions")
    listed = set(re.findall(r"\b[a-z]{2}-[a-z]+-\d\b", regions))
    assert set(_rule_regions("CollectionRegion")) <= listed
    assert set(_rule_regions("InferenceProfileRegion")) <= listed
    assert set(load_template()["Mappings"]["RegionGeography"]) == set(_rule_regions("InferenceProfileRegion"))


def test_the_cost_at_rest_states_the_floor_of_each_environments_collection() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    cost = _section("Cost at rest")
    for env in ("dev", "prod"):
        overrides = dict(p.split("=", 1) for p in config[env]["deploy"]["parameters"]["parameter_overrides"].split())
        monthly = FLOOR_OCU[overrides["StandbyReplicas"]] * OCU_HOUR_USD * HOURS_PER_MONTH
        assert f"${monthly:,.2f} a month" in cost, (env, monthly)
    assert "StandbyReplicas=DISABLED" in cost and "$0.24/OCU-hour" in cost


def test_the_service_linked_role_of_the_first_collection_is_named_with_its_command() -> None:
    section = _section("Before the first deploy in an account: the OpenSearch Serverless service-linked role")
    assert "AWSServiceRoleForAmazonOpenSearchServerless" in section
    assert "aws iam create-service-linked-role --aws-service-name observability.aoss.amazonaws.com" in section


@pytest.mark.parametrize("stale", ["idempotency table", "75 MB", "on the default bus"])
def test_no_stale_statement(stale: str) -> None:
    # there is no idempotency table (docs/data-model.md), the layer is 28.2 MiB, events use the stack's bus
    assert stale not in DEPLOY
