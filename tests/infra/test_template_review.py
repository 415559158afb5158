"""AWS review findings of issue 31 on the template: user data survives a stack deletion, CloudFront names are
unique per stack and region, model endpoints are https only."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.sam_template import ROOT, as_list, load_template, policy_statements, resources, sub_text


def _param(name: str) -> dict[str, Any]:
    param: dict[str, Any] = load_template()["Parameters"][name]
    return param


@pytest.mark.parametrize("table", sorted(resources("AWS::DynamoDB::Table")))
def test_every_table_is_retained_when_the_stack_is_deleted_or_the_table_replaced(table: str) -> None:
    res = resources()[table]
    assert res.get("DeletionPolicy") == "Retain"
    assert res.get("UpdateReplacePolicy") == "Retain"


@pytest.mark.parametrize("table", sorted(resources("AWS::DynamoDB::Table")))
def test_every_table_has_deletion_protection_in_prod_only(table: str) -> None:
    protection = resources()[table]["Properties"].get("DeletionProtectionEnabled")
    assert protection == {"Fn::If": ["IsProd", True, False]}
    assert load_template()["Conditions"]["IsProd"] == {"Fn::Equals": [{"Ref": "Stage"}, "prod"]}


@pytest.mark.parametrize(
    ("name", "kind", "config"),
    [
        ("ConsoleOriginAccessControl", "AWS::CloudFront::OriginAccessControl", "OriginAccessControlConfig"),
        ("ConsoleHeaders", "AWS::CloudFront::ResponseHeadersPolicy", "ResponseHeadersPolicyConfig"),
    ],
)
def test_account_wide_cloudfront_names_carry_the_stack_and_the_region(name: str, kind: str, config: str) -> None:
    res = resources(kind)[name]
    text = sub_text(res["Properties"][config]["Name"])
    assert "${AWS::StackName}" in text
    assert "${AWS::Region}" in text


@pytest.mark.parametrize("param", ["OpenAIBaseUrl", "OpenAIEndpoints"])
@pytest.mark.parametrize("value", ["", "https://api.openai.com/v1"])
def test_model_base_urls_accept_https_or_nothing(param: str, value: str) -> None:
    assert re.fullmatch(_param(param)["AllowedPattern"], value)


@pytest.mark.parametrize("param", ["OpenAIBaseUrl", "OpenAIEndpoints"])
@pytest.mark.parametrize("value", ["http://api.openai.com/v1", "ftp://x", "api.openai.com"])
def test_model_base_urls_refuse_anything_but_https(param: str, value: str) -> None:
    assert not re.fullmatch(_param(param)["AllowedPattern"], value)


def test_the_endpoint_list_refuses_an_http_url_after_an_https_one() -> None:
    pattern = _param("OpenAIEndpoints")["AllowedPattern"]
    assert re.fullmatch(pattern, "https://a.example/v1,https://b.example/v1")
    assert not re.fullmatch(pattern, "https://a.example/v1,http://b.example/v1")


def _deploy_doc() -> str:
    return (ROOT / "docs" / "deploy.md").read_text()


def test_the_deploy_guide_says_user_data_tables_are_retained_and_protected_in_prod() -> None:
    doc = _deploy_doc()
    assert "### Deleting a stack: user data is retained" in doc
    section = doc.split("### Deleting a stack: user data is retained", 1)[1].split("###", 1)[0]
    for needle in ("MainTable", "AuditTable", "DeletionPolicy: Retain", "DeletionProtectionEnabled", "Stage=prod"):
        assert needle in section


def test_the_deploy_guide_documents_the_websocket_idle_timeout_and_the_resume_after() -> None:
    doc = _deploy_doc()
    section = doc.split("### Live runs: the WebSocket idle timeout", 1)[1].split("##", 1)[0]
    assert "10 minutes" in section
    assert '"action": "ping"' in section
    assert '"after"' in section


WRITER_MAIN_TABLE_KEYS = {
    "ReadErasureTombstones": ["ERASURE#*"],
    "MemoryJournal": ["MEMJ#*", "MEMJH#*", "MEMJN#*", "MEMJO#*"],
    "MemoryRevisions": ["MEMREV#*"],  # issue 35.3
    "ChargeRunUsage": ["RUN#*"],
}


def _writer_main_table_statements() -> dict[str, dict[str, Any]]:
    main = {"Fn::GetAtt": ["MainTable", "Arn"]}
    return {s["Sid"]: s for s in policy_statements("WriterFunction") if main in as_list(s["Resource"])}


def test_every_writer_statement_on_the_main_table_is_limited_to_its_key_prefixes() -> None:
    statements = _writer_main_table_statements()
    assert set(statements) == set(WRITER_MAIN_TABLE_KEYS)
    for sid, prefixes in WRITER_MAIN_TABLE_KEYS.items():
        condition = statements[sid]["Condition"]
        assert condition == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": prefixes}}, sid


def test_the_writer_may_neither_scan_nor_delete_single_items_of_the_main_table() -> None:
    actions = {a for s in _writer_main_table_statements().values() for a in as_list(s["Action"])}
    assert not actions & {"dynamodb:Scan", "dynamodb:DeleteItem", "dynamodb:UpdateItem", "dynamodb:*"}


# Claude 4.x product ids of the Bedrock user guide's model-access-product-ids table (snapshot 2026-01-25)
CURRENT_CLAUDE_PRODUCTS = {
    "prod-jhuafngbly644": "Opus 4.5",
    "prod-mxcfnwvpd6kb4": "Sonnet 4.5",
    "prod-xdkflymybwmvi": "Haiku 4.5",
    "prod-w3q2d6rfge4tw": "Opus 4.1",
    "prod-4pmewlybdftbs": "Sonnet 4",
}
SUPERSEDED_CLAUDE_PRODUCTS = {"prod-4dlfvry4v5hbi": "3.7 Sonnet", "prod-5oba7y7jpji56": "3.5 Haiku"}


def _default_products() -> set[str]:
    return set(_param("MarketplaceProductIds")["Default"].split(","))


def test_the_default_marketplace_products_include_every_current_claude_model() -> None:
    assert set(CURRENT_CLAUDE_PRODUCTS) <= _default_products()


def test_the_default_marketplace_products_drop_the_superseded_claude_3_models() -> None:
    assert not set(SUPERSEDED_CLAUDE_PRODUCTS) & _default_products()


def test_the_deploy_guide_names_every_default_product_id() -> None:
    doc = _deploy_doc()
    for product in _default_products():
        assert f"`{product}`" in doc
