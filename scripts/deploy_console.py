"""Publish the web console to a deployed stack: ``make deploy-console STACK=<stack> [REGION=<region>]``.

It reads the stack's outputs, uploads ``console/`` to the console bucket (``index.html`` at the root for
CloudFront's default object, every asset under ``console/``) with its content type and ``no-cache``
(browsers revalidate with the ETag), writes ``console/config.json`` for the Cognito sign-in from the
outputs, deletes objects that no longer exist in ``console/``, and invalidates the distribution. Files
whose MD5 equals the object's ETag are not uploaded again. Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme_local.console_assets import CONSOLE_DIR, CONTENT_TYPES

OUTPUTS = ("ConsoleBucketName", "ConsoleDistributionId", "ConsoleUrl", "ConsoleAuthDomain", "ConsoleClientId", "ApiUrl")
CACHE_CONTROL = "no-cache"


class DeployError(Exception):
    """The console cannot be published (missing outputs, AWS errors)."""


@dataclass(frozen=True)
class Upload:
    key: str
    body: bytes
    content_type: str

    @property
    def md5(self) -> str:
        return hashlib.md5(self.body, usedforsecurity=False).hexdigest()


def stack_outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    try:
        described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    except Exception as exc:  # botocore ClientError, no credentials, ...
        raise DeployError(f"cannot read stack {stack!r}: {exc}") from exc
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    missing = [name for name in OUTPUTS if name not in outputs]
    if missing:
        hint = (
            " (a stack with JwtIssuer set has no Cognito sign-in for the console)"
            if "ConsoleClientId" in missing
            else ""
        )
        raise DeployError(f"stack {stack!r} lacks the outputs {', '.join(missing)}{hint}")
    return outputs


def console_config(outputs: dict[str, str]) -> dict[str, str]:
    """What the console reads at /console/config.json on AWS."""
    return {
        "mode": "cognito",
        "api_base_url": outputs["ApiUrl"].rstrip("/"),
        "cognito_domain": outputs["ConsoleAuthDomain"].rstrip("/"),
        "client_id": outputs["ConsoleClientId"],
        "redirect_uri": outputs["ConsoleUrl"],
    }


def uploads(root: Path, config: dict[str, str]) -> list[Upload]:
    """Every object the bucket must hold, from the console folder and the config."""
    files: list[Upload] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        content_type = CONTENT_TYPES.get(path.suffix.lower())
        if not path.is_file() or content_type is None or any(part.startswith(".") for part in relative.parts):
            continue
        if relative.as_posix() == "config.json":
            continue  # only the generated one
        body = path.read_bytes()
        files.append(Upload(f"console/{relative.as_posix()}", body, content_type))
        if relative.as_posix() == "index.html":
            files.append(Upload("index.html", body, content_type))
    files.append(Upload("console/config.json", json.dumps(config, indent=2).encode(), "application/json"))
    return files


def sync(s3: Any, bucket: str, wanted: Sequence[Upload]) -> tuple[list[str], list[str]]:
    """Upload what changed, delete what is gone: (uploaded keys, deleted keys)."""
    existing: dict[str, str] = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            existing[item["Key"]] = item["ETag"].strip('"')
    uploaded = []
    for upload in wanted:
        if existing.get(upload.key) == upload.md5:
            continue
        s3.put_object(
            Bucket=bucket,
            Key=upload.key,
            Body=upload.body,
            ContentType=upload.content_type,
            CacheControl=CACHE_CONTROL,
        )
        uploaded.append(upload.key)
    stale = sorted(set(existing) - {u.key for u in wanted})
    for start in range(0, len(stale), 1000):
        chunk = stale[start : start + 1000]
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": key} for key in chunk], "Quiet": True})
    return uploaded, stale


def invalidate(cloudfront: Any, distribution_id: str) -> str:
    answer = cloudfront.create_invalidation(
        DistributionId=distribution_id,
        InvalidationBatch={"Paths": {"Quantity": 1, "Items": ["/*"]}, "CallerReference": f"console-{time.time_ns()}"},
    )
    return str(answer["Invalidation"]["Id"])


def publish(session: Any, stack: str, root: Path = CONSOLE_DIR) -> dict[str, Any]:
    outputs = stack_outputs(session.client("cloudformation"), stack)
    try:
        uploaded, deleted = sync(
            session.client("s3"), outputs["ConsoleBucketName"], uploads(root, console_config(outputs))
        )
        invalidation = invalidate(session.client("cloudfront"), outputs["ConsoleDistributionId"])
    except DeployError:
        raise
    except Exception as exc:
        raise DeployError(f"publishing failed: {exc}") from exc
    return {"url": outputs["ConsoleUrl"], "uploaded": uploaded, "deleted": deleted, "invalidation": invalidation}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Publish the web console to a deployed mneme stack.")
    parser.add_argument("--stack", required=True)
    parser.add_argument("--region")
    args = parser.parse_args(argv)
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        result = publish(boto3.session.Session(region_name=args.region), args.stack)
    except DeployError as exc:
        sys.stderr.write(f"deploy-console: {exc}\n")
        return 1
    except BotoCoreError as exc:  # no region or no credentials: raised before any call
        sys.stderr.write(f"deploy-console: cannot read stack {args.stack!r}: {exc} (REGION=<region> sets one)\n")
        return 1
    sys.stdout.write(
        f"console published: {result['url']}\n"
        f"  {len(result['uploaded'])} uploaded, {len(result['deleted'])} deleted, "
        f"invalidation {result['invalidation']}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
