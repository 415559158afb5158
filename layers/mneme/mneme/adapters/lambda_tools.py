"""External tools as Lambda functions (SPEC §8): invoke with the call's arguments and the caller's ids."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import ToolError
from mneme.observability import traced


class LambdaToolInvoker:
    def __init__(self, client: Any) -> None:
        self._client = client

    @traced("lambda.tool")
    def invoke(self, function_arn: str, payload: dict[str, Any]) -> Any:
        try:
            response = self._client.invoke(FunctionName=function_arn, Payload=json.dumps(payload).encode())
        except (ClientError, BotoCoreError) as exc:
            raise ToolError(f"the tool's function could not be invoked: {exc}") from exc
        body = response["Payload"].read()
        try:
            result = json.loads(body) if body else None
        except ValueError:
            result = body.decode(errors="replace")
        if response.get("FunctionError"):
            message = result.get("errorMessage") if isinstance(result, dict) else result
            raise ToolError(f"the tool failed: {message}")
        return result
