"""A small HTTP client for the deployed API (urllib: nothing beyond the standard library), with polling."""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class ApiError(AssertionError):
    pass


class Api:
    def __init__(self, base_url: str, token: str | None) -> None:
        self.base = base_url.rstrip("/")
        self.token = token

    @property
    def user_id(self) -> str:
        """The token's ``sub`` (the user id mneme uses); read without verifying, the API verifies it."""
        assert self.token, "no token"
        payload = self.token.split(".")[1]
        claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return str(claims["sub"])

    def call(
        self, method: str, path: str, body: Any = None, *, expect: int | tuple[int, ...] = 200, auth: bool = True
    ) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if auth and self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=35) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        expected = (expect,) if isinstance(expect, int) else expect
        if status not in expected:
            raise ApiError(f"{method} {path}: {status}, expected {expected}: {text[:2000]}")
        return json.loads(text) if text else None

    def run_until(self, run_id: str, statuses: tuple[str, ...], timeout: float = 240.0) -> dict[str, Any]:
        return eventually(
            lambda: self.call("GET", f"/v1/runs/{run_id}"),
            lambda run: run["status"] in statuses,
            timeout=timeout,
            what=f"run {run_id} to reach {statuses}",
        )


def eventually(
    probe: Callable[[], T], done: Callable[[T], bool], *, timeout: float, what: str, interval: float = 3.0
) -> T:
    """Call ``probe`` until ``done`` holds (OpenSearch Serverless needs up to ~60 s to show a write)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; last: {str(value)[:1000]}")
        time.sleep(interval)
