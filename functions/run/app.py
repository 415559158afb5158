"""The run function's Lambda entry point: wiring only (parse, authorize, one call into the core, map errors).

Until the run engine lands, it answers the health check and reports every other route as not available.
"""

from __future__ import annotations

import json
from typing import Any


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    path = event.get("rawPath", "")
    if path == "/v1/health":
        return _json(200, {"status": "ok"})
    return _json(
        501, {"error": "not_implemented", "message": f"{path or 'this entry point'} is not available yet"}
    )


def _json(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": status, "headers": {"content-type": "application/json"}, "body": json.dumps(body)}
