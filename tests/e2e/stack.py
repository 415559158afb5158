"""A deployed stack, as the opt-in e2e suite and ``sam local invoke`` see it: its outputs, read with boto3.

``python -m tests.e2e.stack sam-env --stack mneme-dev`` prints the ``--env-vars`` file for ``sam local
invoke`` against that stack: ``events/env.json`` with the stack's physical names filled in.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENV_FILE = ROOT / "events" / "env.json"

#: env.json variable -> the stack output that holds its value
FROM_OUTPUTS = {
    "MNEME_TABLE": "MainTableName",
    "MNEME_AUDIT_TABLE": "AuditTableName",
    "MNEME_MEMORY_QUEUE_URL": "MemoryQueueUrl",
    "MNEME_STATE_MACHINE_ARN": "StateMachineArn",
    "MNEME_OPENSEARCH_ENDPOINT": "CollectionEndpoint",
    "MNEME_WEBSOCKET_ENDPOINT": "LiveConnectionsEndpoint",
    "MNEME_PRIVACY_QUEUE_URL": "PrivacyQueueUrl",
    "MNEME_EXPORT_BUCKET": "ExportBucketName",
}


def stack_outputs(stack: str, region: str | None = None, *, session: Any = None) -> dict[str, str]:
    """``{OutputKey: OutputValue}`` of a deployed stack."""
    import boto3

    client = (session or boto3.Session(region_name=region)).client("cloudformation")
    (description,) = client.describe_stacks(StackName=stack)["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in description.get("Outputs", [])}


def sam_env(outputs: Mapping[str, str], template: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``events/env.json`` with the deployed stack's names: ``sam local invoke`` then reaches its tables,
    queue, state machine and collection (with the invoker's AWS credentials)."""
    env: dict[str, Any] = json.loads(json.dumps(template if template is not None else json.loads(ENV_FILE.read_text())))
    for function in env.values():
        for name, output in FROM_OUTPUTS.items():
            if name in function and output in outputs:
                function[name] = outputs[output]
    return env


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.stack")
    commands = parser.add_subparsers(dest="command", required=True)
    env = commands.add_parser("sam-env", help="print the --env-vars file of sam local invoke for a deployed stack")
    env.add_argument("--stack", required=True)
    env.add_argument("--region", default=None)
    env.add_argument("--out", type=Path, default=None, help="write the file here (only when the stack was read)")
    args = parser.parse_args(argv)
    from botocore.exceptions import BotoCoreError, ClientError, NoRegionError

    try:
        text = json.dumps(sam_env(stack_outputs(args.stack, args.region)), indent=2) + "\n"
    except (BotoCoreError, ClientError) as exc:  # no region, no credentials, no such stack
        hint = " (REGION=<region> sets one)" if isinstance(exc, NoRegionError) else ""
        sys.stderr.write(f"sam-env: cannot read stack {args.stack!r}: {exc}{hint}\n")
        return 1
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
