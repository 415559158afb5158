"""What a cold start imports: the AWS clients come from botocore alone (no boto3, no s3transfer), and only the
router of the route asked for (a fresh interpreter talking to a moto server)."""

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
    "routers": sorted(m for m in sys.modules if m.startswith("mneme.api.") and m.endswith("_routes")),
    "agents": app.lambda_handler({{**event, "rawPath": "/v1/agents", "body": None,
        "requestContext": {{**event["requestContext"], "http": {{**event["requestContext"]["http"], "method": "GET",
        "path": "/v1/agents"}}}}}}, None)["statusCode"],
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


def _first_request(endpoint: str) -> dict[str, object]:
    """A fresh interpreter with the deployed environment (DynamoDB being a moto server) answers a first
    POST /v1/runs (for an agent that does not exist: the config is read, 404), then a GET /v1/agents."""
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
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_first_request_through_the_handler_imports_no_boto3(endpoint: str) -> None:
    result = _first_request(endpoint)
    loaded = result["loaded"]
    assert isinstance(loaded, list)
    # Then the runtime was built and talked to DynamoDB through botocore, without boto3 or s3transfer
    assert result["runtime_built"] is True and result["status"] == 404
    assert "botocore.client" in loaded
    assert [m for m in loaded if not m.startswith("botocore")] == []


def test_a_first_request_loads_only_its_router_and_the_others_come_on_demand(endpoint: str) -> None:
    result = _first_request(endpoint)
    # Then only the runs router was imported for POST /v1/runs, and a later GET /v1/agents was still served
    assert result["routers"] == ["mneme.api.run_routes"]
    assert result["agents"] == 200
