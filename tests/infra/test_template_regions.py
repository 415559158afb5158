"""Regions and model defaults: where the stack deploys, which model ids it picks there, and the clear refusal
elsewhere (template Rules, evaluated as CloudFormation evaluates them before creating anything)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import botocore
import pytest

from tests.support.cfn_rules import failed_assertions
from tests.support.sam_template import ROOT, load_template, resources

GEOGRAPHY = {"us": "us-", "eu": "eu-", "apac": "ap-"}


def _rule_regions(rule: str) -> list[str]:
    (assertion,) = load_template()["Rules"][rule]["Assertions"]
    regions, region_ref = assertion["Assert"]["Fn::Contains"]
    assert region_ref == {"Ref": "AWS::Region"}
    return list(regions)


def _geographies() -> dict[str, str]:
    mapping = load_template()["Mappings"]["RegionGeography"]
    return {region: entry["InferenceProfilePrefix"] for region, entry in mapping.items()}


def _botocore_regions(service: str) -> set[str]:
    data = json.loads((Path(botocore.__file__).parent / "data" / "endpoints.json").read_text())
    (aws,) = [p for p in data["partitions"] if p["partition"] == "aws"]
    return {r for r in aws["services"][service]["endpoints"] if "fips" not in r}


def _summary_model_for(region: str) -> Any:
    """MNEME_SUMMARY_MODEL_ID of the run function with SummaryModelId=auto, resolved for ``region``."""
    value = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]["MNEME_SUMMARY_MODEL_ID"]
    condition, when_auto, _otherwise = value["Fn::If"]
    assert condition == "AutoSummaryModel"
    text, variables = when_auto["Fn::Sub"]
    mapping, key, attribute = variables["Geography"]["Fn::FindInMap"]
    assert key == {"Ref": "AWS::Region"}
    prefix = load_template()["Mappings"][mapping][region][attribute]
    return text.replace("${Geography}", prefix)


def test_the_profile_rule_and_the_geography_mapping_name_the_same_regions() -> None:
    # FindInMap fails with an opaque error for a region it does not know: the rule must refuse it first
    assert sorted(_rule_regions("InferenceProfileRegion")) == sorted(_geographies())


def test_each_region_maps_to_the_profile_prefix_of_its_geography() -> None:
    for region, prefix in _geographies().items():
        assert region.startswith(GEOGRAPHY[prefix]), region


def test_collection_regions_are_regions_where_opensearch_serverless_exists() -> None:
    assert set(_rule_regions("CollectionRegion")) <= _botocore_regions("aoss")
    assert set(_geographies()) <= set(_rule_regions("CollectionRegion")), "a default deploy needs both"


def test_samconfig_deploys_every_environment_to_a_supported_region() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    for env in ("default", "dev", "prod"):
        region = config[env]["global"]["parameters"]["region"]
        assert failed_assertions(region) == {}, env


@pytest.mark.parametrize(
    ("region", "model"),
    [
        ("us-east-2", "us.amazon.nova-lite-v1:0"),
        ("eu-central-1", "eu.amazon.nova-lite-v1:0"),
        ("ap-southeast-2", "apac.amazon.nova-lite-v1:0"),
    ],
)
def test_the_default_summary_model_is_the_inference_profile_of_the_deploy_region(region: str, model: str) -> None:
    assert load_template()["Parameters"]["SummaryModelId"]["Default"] == "auto"
    assert _summary_model_for(region) == model


def test_an_explicit_summary_model_is_passed_through() -> None:
    value = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]["MNEME_SUMMARY_MODEL_ID"]
    assert value["Fn::If"][2] == {"Ref": "SummaryModelId"}


def test_a_region_without_opensearch_serverless_is_refused_with_a_clear_message() -> None:
    failed = failed_assertions("me-south-1")
    assert set(failed) == {"CollectionRegion", "InferenceProfileRegion"}
    assert "OpenSearch Serverless is not offered in this region" in failed["CollectionRegion"]
    assert "OpenSearchEndpoint" in failed["CollectionRegion"]


def test_an_existing_endpoint_and_an_explicit_model_deploy_anywhere() -> None:
    assert (
        failed_assertions(
            "me-south-1",
            OpenSearchEndpoint="https://search-x.me-south-1.es.amazonaws.com",
            OpenSearchResourceArn="arn:aws:es:me-south-1:123456789012:domain/x",
            SummaryModelId="",
        )
        == {}
    )


def test_a_region_without_a_profile_geography_needs_an_explicit_summary_model() -> None:
    # ca-central-1 has OpenSearch Serverless but is not a source region of the Nova Lite profiles
    assert set(failed_assertions("ca-central-1")) == {"InferenceProfileRegion"}
    assert "Set SummaryModelId" in failed_assertions("ca-central-1")["InferenceProfileRegion"]
    assert failed_assertions("ca-central-1", SummaryModelId="amazon.titan-text-express-v1") == {}


def test_an_existing_issuer_needs_an_audience() -> None:
    issuer = "https://issuer.example.com"
    assert set(failed_assertions("us-east-1", JwtIssuer=issuer, JwtAudience=[""])) == {"ExistingIssuerNeedsAudience"}
    assert failed_assertions("us-east-1", JwtIssuer=issuer, JwtAudience=["client-1"]) == {}


def test_the_outputs_name_the_default_model_id_for_clients() -> None:
    output = load_template()["Outputs"]["DefaultModelId"]
    assert output["Condition"] == "AutoSummaryModel"
    run_env = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]["MNEME_SUMMARY_MODEL_ID"]
    assert output["Value"] == run_env["Fn::If"][1]
