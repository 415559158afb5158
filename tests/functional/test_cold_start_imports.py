"""What a cold start imports: the AWS clients come from botocore alone (no boto3, no s3transfer), even when
the first real request has been answered (a fresh interpreter talking to a moto server)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from tests.support.sam_template import create_tables

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

_PROBE = """
import json, sys
sys.path[:0] = [{paths}]
import app
event = json.load(open({event!r}))
event["headers"].pop("idempotency-key", None)
event["body"] = json.dumps({{"agent_id": "nobody", "input": "hello"}})
response = app.lambda_handler(event, None)
print(json.dumps({{
    "status": response["statusCode"],
    "runtime_built": app._runtime is not None,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "s3transfer", "botocore")),
}}))
"""


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    client = boto3.client(
        "dynamodb", region_name="us-east-1", endpoint_url=url, aws_access_key_id="t", aws_secret_access_key="t"
    )
    create_tables(client, {"MainTable": "m", "AuditTable": "a"})
    try:
        yield url
    finally:
        server.stop()


def test_a_first_request_through_the_handler_imports_no_boto3(endpoint: str) -> None:
    # Given a fresh interpreter with the deployed environment, DynamoDB being a moto server
    paths = ", ".join(repr(str(ROOT / p)) for p in ("functions/run", "layers/mneme"))
    code = _PROBE.format(paths=paths, event=str(ROOT / "events" / "http-post-run.json"))
    env = {
        "PATH": "/usr/bin:/bin",
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "MNEME_TABLE": "m",
        "MNEME_AUDIT_TABLE": "a",
        "MNEME_MODEL_PROVIDER": "offline",
    }
    # When it answers a first POST /v1/runs (for an agent that does not exist: the config is read, 404)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # Then the runtime was built and talked to DynamoDB through botocore, without boto3 or s3transfer
    assert result["runtime_built"] is True and result["status"] == 404
    assert "botocore.client" in result["loaded"]
    assert [m for m in result["loaded"] if not m.startswith("botocore")] == []
