"""`make deploy-console`: the stack's outputs → the bucket's objects, config.json and an invalidation (moto)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from scripts import deploy_console

from mneme_local.console_assets import CONSOLE_DIR
from tests.support.sam_template import load_template

ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
BUCKET = "mneme-dev-console"


def _distribution(cloudfront: Any) -> str:
    config = {
        "CallerReference": "test",
        "Comment": "console",
        "Enabled": True,
        "Origins": {
            "Quantity": 1,
            "Items": [
                {"Id": "o", "DomainName": f"{BUCKET}.s3.amazonaws.com", "S3OriginConfig": {"OriginAccessIdentity": ""}}
            ],
        },
        "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "redirect-to-https", "MinTTL": 0},
    }
    return str(cloudfront.create_distribution(DistributionConfig=config)["Distribution"]["Id"])


def _stack(cloudformation: Any, outputs: dict[str, str]) -> None:
    template = {
        "Resources": {"ConsoleBucket": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": BUCKET}}},
        "Outputs": {name: {"Value": value} for name, value in outputs.items()},
    }
    cloudformation.create_stack(StackName="mneme-dev", TemplateBody=json.dumps(template))


@pytest.fixture
def aws() -> Iterator[tuple[Any, dict[str, str]]]:
    with mock_aws():
        session = boto3.session.Session(region_name=REGION)
        outputs = {
            "ConsoleBucketName": BUCKET,
            "ConsoleDistributionId": _distribution(session.client("cloudfront")),
            "ConsoleUrl": "https://d111111abcdef8.cloudfront.net/",
            "ConsoleAuthDomain": "https://mneme-1234.auth.us-east-1.amazoncognito.com",
            "ConsoleClientId": "console-client-id",
            "ApiUrl": "https://abc123.execute-api.us-east-1.amazonaws.com",
        }
        _stack(session.client("cloudformation"), outputs)
        yield session, outputs


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "console"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>x</title>")
    (root / "console.css").write_text("body{}")
    (root / "js" / "app.js").write_text("export {};")
    (root / ".editorconfig").write_text("root = true")
    (root / "notes.md").write_text("not an asset")
    return root


def _objects(session: Any) -> dict[str, dict[str, Any]]:
    s3 = session.client("s3")
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
    return {key: s3.get_object(Bucket=BUCKET, Key=key) for key in keys}


def test_publishing_uploads_the_assets_with_types_and_no_cache(aws, site: Path) -> None:
    session, _ = aws
    result = deploy_console.publish(session, "mneme-dev", site)
    objects = _objects(session)
    assert set(objects) == {
        "index.html",
        "console/index.html",
        "console/console.css",
        "console/js/app.js",
        "console/config.json",
    }
    assert objects["console/js/app.js"]["ContentType"] == "text/javascript; charset=utf-8"
    assert objects["index.html"]["ContentType"] == "text/html; charset=utf-8"
    assert {o["CacheControl"] for o in objects.values()} == {"no-cache"}
    assert len(result["uploaded"]) == 5 and result["deleted"] == []


def test_the_config_is_written_from_the_stack_outputs(aws, site: Path) -> None:
    session, outputs = aws
    deploy_console.publish(session, "mneme-dev", site)
    config = json.loads(_objects(session)["console/config.json"]["Body"].read())
    assert config == {
        "mode": "cognito",
        "api_base_url": outputs["ApiUrl"],
        "cognito_domain": outputs["ConsoleAuthDomain"],
        "client_id": "console-client-id",
        "redirect_uri": outputs["ConsoleUrl"],
    }


def test_a_second_publish_uploads_only_what_changed_and_deletes_what_is_gone(aws, site: Path) -> None:
    session, _ = aws
    deploy_console.publish(session, "mneme-dev", site)
    (site / "console.css").write_text("body{color:#000}")
    (site / "js" / "app.js").unlink()
    result = deploy_console.publish(session, "mneme-dev", site)
    assert result["uploaded"] == ["console/console.css"]
    assert result["deleted"] == ["console/js/app.js"]


def test_every_publish_invalidates_the_distribution(aws, site: Path) -> None:
    session, outputs = aws
    deploy_console.publish(session, "mneme-dev", site)
    listed = session.client("cloudfront").list_invalidations(DistributionId=outputs["ConsoleDistributionId"])
    assert listed["InvalidationList"]["Quantity"] == 1


def test_a_stack_without_the_console_outputs_fails_with_the_missing_names(site: Path) -> None:
    with mock_aws():
        session = boto3.session.Session(region_name=REGION)
        _stack(session.client("cloudformation"), {"ApiUrl": "https://abc.execute-api.us-east-1.amazonaws.com"})
        with pytest.raises(deploy_console.DeployError, match="ConsoleClientId"):
            deploy_console.publish(session, "mneme-dev", site)


def test_the_command_exits_non_zero_when_the_stack_does_not_exist(monkeypatch, capsys) -> None:
    with mock_aws():
        monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
        assert deploy_console.main(["--stack", "no-such-stack", "--region", REGION]) == 1
    assert "cannot read stack 'no-such-stack'" in capsys.readouterr().err


def test_without_a_region_the_command_says_so_instead_of_a_traceback(monkeypatch, capsys, tmp_path: Path) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    assert deploy_console.main(["--stack", "mneme-dev"]) == 1
    err = capsys.readouterr().err
    assert "deploy-console: cannot read stack 'mneme-dev': You must specify a region." in err
    assert "REGION=<region>" in err


def test_make_deploy_console_runs_the_script_and_reports_a_stack_it_cannot_read(tmp_path: Path) -> None:
    """The Makefile's command line itself (the script imports the mneme package through mneme_local): without
    AWS credentials it names the stack it could not read, and imports nothing it cannot find."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    missing = str(tmp_path / "none")
    env |= {"AWS_CONFIG_FILE": missing, "AWS_SHARED_CREDENTIALS_FILE": missing, "AWS_EC2_METADATA_DISABLED": "true"}
    make = ["make", "--no-print-directory", "-o", ".venv/.stamp"]
    out = subprocess.run(
        [*make, "deploy-console", "STACK=no-such-stack", f"REGION={REGION}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert "deploy-console: cannot read stack 'no-such-stack'" in out.stderr
    assert out.returncode != 0


def test_the_outputs_it_reads_are_the_templates() -> None:
    assert set(deploy_console.OUTPUTS) <= set(load_template()["Outputs"])


def test_the_real_console_folder_is_what_gets_published() -> None:
    keys = {u.key for u in deploy_console.uploads(CONSOLE_DIR, {"mode": "cognito"})}
    assert {"index.html", "console/index.html", "console/js/app.js", "console/config.json"} <= keys
    assert all(key == "index.html" or key.startswith("console/") for key in keys)
