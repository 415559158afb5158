"""External tools as Lambda functions (SPEC §8): invoke with the call's arguments and the caller's ids.

A call gets the time the run's budget leaves (``timeout_seconds``): it is made with a ``lambda`` client whose
read timeout fits it (:class:`~mneme.adapters.aws.timed_calls.TimedClients`) and is never retried — the function
may have acted already. A tool that does not answer in time is a tool error the model sees.
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, ReadTimeoutError

from mneme.adapters.aws.timed_calls import CONNECT_TIMEOUT_SECONDS, TimedClients
from mneme.errors import ToolError, deployment_redacted
from mneme.observability import traced


class LambdaToolInvoker:
    def __init__(self, client: Any, *, timed: TimedClients | None = None) -> None:
        self._client = client
        self._timed = timed

    @traced("lambda.tool")
    def invoke(self, function_arn: str, payload: dict[str, Any], *, timeout_seconds: float | None = None) -> Any:
        client = self._client
        if timeout_seconds is not None and self._timed is not None:
            client = self._timed.for_read_timeout(timeout_seconds - CONNECT_TIMEOUT_SECONDS)
        try:
            response = client.invoke(FunctionName=function_arn, Payload=json.dumps(payload).encode())
        except ReadTimeoutError as exc:
            within = f"{timeout_seconds:.0f} s" if timeout_seconds else "its read timeout"
            raise ToolError(f"the tool's function did not answer within {within}") from exc
        except (ClientError, BotoCoreError) as exc:
            raise ToolError(f"the tool's function could not be invoked: {deployment_redacted(str(exc))}") from exc
        body = response["Payload"].read()
        try:
            result = json.loads(body) if body else None
        except ValueError:
            result = body.decode(errors="replace")
        if response.get("FunctionError"):
            message = result.get("errorMessage") if isinstance(result, dict) else result
            raise ToolError(f"the tool failed: {message}")
        return result
