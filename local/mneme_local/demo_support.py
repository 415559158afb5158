"""The helpers of ``make demo``: a small authenticated JSON client of the local server and the printing."""

from __future__ import annotations

import json
import textwrap
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

WIDTH = 110


class DemoFailed(Exception):
    pass


class Api:
    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.token = token

    def call(self, method: str, path: str, body: Any = None, *, expect: Sequence[int] = (200,)) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        answer = json.loads(raw) if raw else None
        if status not in expect:
            raise DemoFailed(f"{method} {path} answered {status}: {raw[:400]!r}")
        return answer


# ------------------------------------------------------------------------------------------------ output
def heading(title: str) -> None:
    print(f"\n{'=' * WIDTH}\n{title}\n{'=' * WIDTH}")


def show(label: str, text: str, indent: int = 4) -> None:
    pad = " " * indent
    print(f"{pad}{label}")
    for line in text.splitlines() or [""]:
        print(textwrap.indent(textwrap.fill(line, WIDTH - indent - 4) if line else "", pad + "  │ ") or pad + "  │")


def check(condition: bool, message: str) -> None:
    print(f"  {'✔' if condition else '✘'} {message}")
    if not condition:
        raise DemoFailed(message)


def block_text(block: dict[str, Any]) -> str:
    if "text" in block:
        return str(block["text"])
    if "cachePoint" in block:
        return "<cachePoint>"
    if "toolUse" in block:
        use = block["toolUse"]
        return f"<toolUse {use.get('name')} {json.dumps(use.get('input'), ensure_ascii=False)}>"
    if "toolResult" in block:
        result = block["toolResult"]
        texts = " ".join(str(c.get("text", c)) for c in result.get("content", []))
        return f"<toolResult {result.get('status', 'success')}> {texts}"
    return json.dumps(block)


def print_request(index: int, request: dict[str, Any]) -> None:
    tools = [t["toolSpec"]["name"] for t in (request.get("toolConfig") or {}).get("tools", []) if "toolSpec" in t]
    print(f"\n  ── model call {index}: modelId={request.get('modelId')}  tools={tools or '—'}")
    for n, block in enumerate(request.get("system") or [], 1):
        show(f"system[{n}]", block_text(block))
    for message in request.get("messages") or []:
        for block in message.get("content") or []:
            show(f"{message.get('role')}", block_text(block))
