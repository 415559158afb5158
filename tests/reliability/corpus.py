"""A hand-written hostile corpus (issue 12 acceptance) for the local server: what a fuzzer from the OpenAPI
document does not send — nesting past any parser's recursion, numbers past a float or a C long, reserved ids,
odd group names, chunked and malformed bodies, NUL bytes, invalid UTF-8, enormous headers.

Each case is raw bytes on a socket (so nothing in the client cleans it up); :func:`send` answers the status.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jwt

from mneme_local.token import ALGORITHM, AUDIENCE, ISSUER

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000
HUGE_INT = "1" + "0" * 400  # 10**400
HUGER_INT = "9" * 5000  # over Python's 4,300-digit int parsing limit


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    token: str | None = "alice"  # whose token (a user name, or a prepared token with "jwt:")
    chunked: bool = False
    raw_head: bytes | None = None  # the whole request head, sent as is


def token_for(key: bytes, sub: str, groups: Any = None) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 3600}
    if groups is not None:
        claims["cognito:groups"] = groups
    return jwt.encode(claims, key, algorithm=ALGORITHM)


def fill(template: str, value: str) -> str:
    """``template`` with its ``@`` replaced by ``value`` (JSON templates have braces of their own)."""
    return template.replace("@", value, 1)


def _json(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def cases() -> Iterator[Case]:
    run = '{"agent_id": "echo", "input": @}'
    for route, method, template in [
        ("/v1/runs", "POST", '{"agent_id": "echo", "input": "x", "memory": @}'),
        ("/v1/context/preview", "POST", '{"agent_id": "echo", "input": "x", "memory": @}'),
        ("/v1/memory/search", "POST", '{"query": "x", "namespaces": @}'),
        ("/v1/memory/documents", "POST", '{"namespace": "vector.user.alice.memory", "content": "x", "tags": @}'),
        ("/v1/agents/deep", "PUT", '{"label": "Deep", "external_tools": @}'),
        ("/v1/agents/echo/tasks/deep", "PUT", '{"name": "x", "memory_policy": @}'),
        ("/v1/skills/deep", "PUT", '{"description": "x", "content": "x", "when_to_use": @}'),
        ("/v1/me/settings", "PUT", '{"name": @}'),
        ("/v1/runs/nope/approvals", "POST", '{"call_id": "c", "decision": @}'),
    ]:
        yield Case(f"deep array {route}", method, route, _json(fill(template, DEEP)))
        yield Case(f"deep object {route}", method, route, _json(fill(template, DEEP_OBJECT)))
    for name, value in [
        ("1e309", "1e309"),
        ("-1e309", "-1e309"),
        ("10**400", HUGE_INT),
        ("5000 digits", HUGER_INT),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
    ]:
        yield Case(f"top_k {name}", "POST", "/v1/memory/search", _json(fill('{"query": "x", "top_k": @}', value)))
        doc = fill('{"namespace": "vector.user.alice.memory", "content": "x", "ttl_seconds": @}', value)
        yield Case(f"ttl {name}", "POST", "/v1/memory/documents", _json(doc))
        yield Case(
            f"memory.top_k {name}",
            "POST",
            "/v1/runs",
            _json(fill('{"agent_id": "echo", "input": "x", "memory": {"top_k": @}}', value)),
        )
        yield Case(
            f"max_tokens {name}",
            "PUT",
            "/v1/agents/big",
            _json(fill('{"label": "Big", "model": {"inference": {"max_tokens": @}}}', value)),
        )
    for name, arguments in [
        ("tool ttl 1e12", '{"content": "x", "namespace": "vector.user.alice.memory", "ttl_seconds": 1e12}'),
        ("tool top_k 1e309", '{"query": "x", "top_k": 1e309}'),
        ("tool 10**400", fill('{"query": "x", "top_k": @}', HUGE_INT)),
        ("tool deep", fill('{"query": "x", "namespaces": @}', DEEP)),
        ("tool lone surrogate", '{"query": "\\ud800"}'),
    ]:
        yield Case(
            name,
            "POST",
            "/v1/runs",
            json.dumps({"agent_id": "echo", "input": f"/tool memory-search {arguments}"}).encode(),
        )
    yield Case("lone surrogate in input", "POST", "/v1/runs", _json(fill(run, '"a \\ud800 b"')))
    yield Case("NUL in input", "POST", "/v1/runs", _json(fill(run, '"a \\u0000 b"')))
    yield Case("raw NUL byte in the body", "POST", "/v1/runs", b'{"agent_id": "echo", "input": "a\x00b"}')
    yield Case("invalid UTF-8 body", "POST", "/v1/runs", b'{"agent_id": "echo", "input": "\xff\xfe\xc3"}')
    yield Case("invalid UTF-8 in the path", "GET", "/v1/agents/%ff%fe")
    yield Case("NUL in the path", "GET", "/v1/runs/%00")
    yield Case("NUL in a query", "GET", "/v1/audit?namespace=%00&limit=1")
    yield Case("invalid UTF-8 in a query", "GET", "/v1/audit?run_id=%ff")
    yield Case("a huge limit", "GET", f"/v1/audit?limit={HUGE_INT}")
    yield Case("a negative limit", "GET", "/v1/audit?limit=-1")
    yield Case(
        "10,000 namespaces",
        "POST",
        "/v1/memory/search",
        json.dumps({"query": "x", "namespaces": ["vector.user.alice.memory"] * 10_000}).encode(),
    )
    for reserved in ("__global__", "OWNER%23bob", "GLOBAL", "..%2F..%2Fetc", "%2e%2e", "a" * 300):
        yield Case(f"reserved id {reserved[:20]} (agent)", "GET", f"/v1/agents/{reserved}")
        yield Case(f"reserved id {reserved[:20]} (run)", "GET", f"/v1/runs/{reserved}/events")
        yield Case(f"reserved id {reserved[:20]} (chat)", "DELETE", f"/v1/chats/{reserved}")
    for sub in ("__global__", "", "x" * 129, "a#b", "a\x00b", "a\nb"):
        yield Case(
            f"reserved sub {sub[:10]!r}", "PUT", "/v1/agents/planted", b'{"label": "Planted"}', token=f"sub:{sub}"
        )
    for groups in (["x,admin"], ["[admin"], ["admin]"], ["Admin"], '["ops admin"]', "x,admin"):
        yield Case(
            f"odd groups {groups}",
            "PUT",
            "/v1/agents/odd",
            b'{"label": "Odd", "global": true}',
            token=f"groups:{json.dumps(groups)}",
        )
    yield Case("a chunked run", "POST", "/v1/runs", b'{"agent_id": "echo", "input": "chunked"}', chunked=True)
    yield Case(
        "a chunked deep body",
        "POST",
        "/v1/memory/search",
        _json(fill('{"query": "x", "namespaces": @}', DEEP)),
        chunked=True,
    )
    for name, body in [
        ("negative size", b"-1\r\n{}"),
        ("not hex", b"zz\r\n{}\r\n0\r\n\r\n"),
        ("endless line", b"f" * 3000),
    ]:
        yield Case(f"chunked {name}", "POST", "/v1/runs", body, raw_head=b"chunked")
    yield Case(
        "a 60 KB Idempotency-Key",
        "POST",
        "/v1/runs",
        _json(fill(run, '"x"')),
        headers=(("Idempotency-Key", "k" * 60_000),),
    )
    yield Case("a 70 KB header line", "GET", "/v1/agents", headers=(("X-Big", "b" * 70_000),))
    yield Case("150 headers", "GET", "/v1/agents", headers=tuple((f"X-H{i}", "v") for i in range(150)))
    yield Case(
        "a 60 KB Authorization", "GET", "/v1/agents", token=None, headers=(("Authorization", "Bearer " + "a" * 60_000),)
    )
    yield Case("a NUL in a header value", "GET", "/v1/agents", headers=(("X-Nul", "a\x00b"),))
    yield Case("a non-numeric Content-Length", "POST", "/v1/runs", b"{}", headers=(("Content-Length", "12abc"),))
    yield Case(
        "text/plain JSON", "POST", "/v1/runs", _json(fill(run, '"x"')), headers=(("Content-Type", "text/plain"),)
    )
    yield Case("an empty POST", "POST", "/v1/runs", b"")


def send(port: int, key: bytes, case: Case, *, timeout: float = 30.0) -> int:
    """Send one case; answer the status code (0 when the server closed the connection without one)."""
    headers = [("Host", "127.0.0.1"), ("Content-Type", "application/json"), *case.headers]
    if case.token is not None:
        kind, _, value = case.token.partition(":")
        if kind == "sub":
            token = token_for(key, value)
        elif kind == "groups":
            token = token_for(key, "mallory", json.loads(value))
        else:
            token = token_for(key, case.token)
        headers.append(("Authorization", f"Bearer {token}"))
    body = case.body if case.body is not None else b""
    if case.raw_head == b"chunked":
        payload = body
        headers.append(("Transfer-Encoding", "chunked"))
    elif case.chunked:
        payload = b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:100], body[100:]) if part)
        payload += b"0\r\n\r\n"
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        payload = body
        if not any(name.lower() == "content-length" for name, _ in case.headers):
            headers.append(("Content-Length", str(len(body))))
    head = f"{case.method} {case.path} HTTP/1.1\r\n".encode("latin-1")
    head += (
        b"".join(f"{n}: {v}\r\n".encode("utf-8", "surrogateescape") for n, v in headers) + b"Connection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head + payload)
        if case.raw_head == b"chunked":
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/") else b"0"
    return int(status)
