"""The AWS stand-ins of the local embedded mode: Step Functions, Lambda and SQS served by moto.

moto runs in-process as a ``ThreadedMotoServer`` on a free loopback port (not ``mock_aws``: that would patch
every boto3 client of the process, real Bedrock included). Loopback is reachable by every local process, so
the server also requires a random secret, made at each start, in a header (:data:`SECRET_HEADER`, checked by
a WSGI middleware in front of moto): the stack's clients and moto's own (the ASL interpreter's calls to Lambda
and Step Functions) add it to every request sent to that port; any other request is refused with a 403
(issue 12.12: a memory had been injected into another user's namespace through the open endpoint).

The ``agent-run`` machine is created from the
**real ASL file**; its ``${RunFunctionArn}`` is a moto Lambda function whose invocations call
:meth:`Runtime.handle` in-process (``sfn_emulation.HANDLERS``). The memory queue (with a dead-letter queue)
is drained by a background thread of :class:`mneme_local.stack.LocalMneme` that feeds the runtime's SQS path.
"""

from __future__ import annotations

import hmac
import io
import json
import logging
import os
import secrets
import socket
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# not "mneme…": Powertools filters every logger whose name contains its service name off the root handlers
log = logging.getLogger("local_mode")
logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's request log

REPO_ROOT = Path(__file__).resolve().parents[2]
ASL_PATH = REPO_ROOT / "statemachine" / "agent-run.asl.json"
FUNCTION_NAME = "mneme-run-local"
STATE_MACHINE_NAME = "mneme-agent-run"
QUEUE_NAME = "mneme-memory-writes"
DLQ_NAME = "mneme-memory-writes-dlq"
_MOTO_CREDENTIALS = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
SECRET_HEADER = "X-Mneme-Local-Secret"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _lambda_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def lambda_handler(event, context):\n    return event\n")
    return buffer.getvalue()


class RequireSecret:
    """WSGI middleware: only requests carrying the secret reach moto; the rest get a 403."""

    def __init__(self, app: Callable[..., Iterable[bytes]], secret: str) -> None:
        self._app = app
        self._secret = secret.encode()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        given = str(environ.get("HTTP_" + SECRET_HEADER.upper().replace("-", "_"), "")).encode()
        if not hmac.compare_digest(given, self._secret):
            start_response("403 Forbidden", [("Content-Type", "application/json")])
            return [b'{"error": "forbidden", "message": "this endpoint serves the local mneme server only"}']
        return self._app(environ, start_response)


def _secret_server(secret: str, port: int) -> Any:
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    class SecretMotoServer(ThreadedMotoServer):
        def _server_entry(self) -> None:  # moto's own, with the middleware in front of its app
            app = RequireSecret(DomainDispatcherApplication(create_backend_app), secret)
            self._server = make_server(self._ip_address, self._port, app, True, request_handler=MotoRequestHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    return SecretMotoServer(ip_address="127.0.0.1", port=port, verbose=False)


def _send_secret(port: int, secret: str) -> None:
    """Every boto3 client of the default session (the stack's and moto's own) adds the secret to requests
    sent to this port on loopback — and only to them."""
    import boto3

    def add(request: Any, **_: Any) -> None:
        target = urlsplit(request.url)
        if target.port == port and target.hostname in ("127.0.0.1", "localhost"):
            request.headers[SECRET_HEADER] = secret

    boto3._get_default_session().events.register("before-send", add, unique_id=f"mneme-moto-secret-{port}")


def start_moto() -> tuple[Any, str]:
    from mneme_local import sfn_emulation

    sfn_emulation.install()
    secret = secrets.token_urlsafe(32)
    server = _secret_server(secret, free_port())
    server.start()
    host, port = server.get_host_and_port()
    _send_secret(port, secret)
    os.environ["MOTO_PORT"] = str(port)  # where moto's ASL interpreter calls Lambda and Step Functions
    url = f"http://{host}:{port}"
    import urllib.request

    request = urllib.request.Request(
        f"{url}/moto-api/config",
        data=json.dumps(sfn_emulation.MOTO_CONFIG).encode(),
        headers={"Content-Type": "application/json", SECRET_HEADER: secret},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()
    return server, url


def moto_client(service: str, url: str, region: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=url,
        region_name=region,
        config=Config(retries={"max_attempts": 3, "mode": "standard"}),
        **_MOTO_CREDENTIALS,
    )


def create_aws_stand_ins(url: str, region: str) -> tuple[str, str, Any, Any]:
    """The moto resources: role, run function, agent-run machine (real ASL), queue + DLQ."""
    iam = moto_client("iam", url, region)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
    role_arn = iam.create_role(RoleName="mneme-local", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    function_arn = moto_client("lambda", url, region).create_function(
        FunctionName=FUNCTION_NAME,
        Runtime="python3.12",
        Role=role_arn,
        Handler="app.lambda_handler",
        Code={"ZipFile": _lambda_zip()},
        Timeout=900,
    )["FunctionArn"]
    definition = ASL_PATH.read_text(encoding="utf-8").replace("${RunFunctionArn}", function_arn)
    sfn = moto_client("stepfunctions", url, region)
    machine_arn = sfn.create_state_machine(name=STATE_MACHINE_NAME, definition=definition, roleArn=role_arn)[
        "stateMachineArn"
    ]
    sqs = moto_client("sqs", url, region)
    dlq_url = sqs.create_queue(QueueName=DLQ_NAME)["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    queue_url = sqs.create_queue(
        QueueName=QUEUE_NAME,
        Attributes={
            "VisibilityTimeout": "30",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"}),
        },
    )["QueueUrl"]
    return machine_arn, queue_url, sfn, sqs
