"""Local mode under faults and hostile neighbours (issue 12.11–12.13): a ``kill -9`` loses no queued memory
write, the in-process moto answers only the server, chunked bodies keep the size cap, the data is private.
"""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import stat
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mneme_local.token import issue
from tests.functional.local.support import Client, LocalServer, wait_until
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER

pytestmark = pytest.mark.slow
KEEPER = {
    "label": "Keeper",
    "model": {"provider": "offline", "model_id": "offline"},
    "memory_policy": {"allow_write": True},
}
RUNS = 12


def _live_memories(data_dir: Path) -> int:
    with sqlite3.connect(f"file:{data_dir / 'memory.sqlite3'}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM memory WHERE deleted = 0").fetchone()[0])


def test_a_kill_9_after_runs_queued_memory_writes_loses_none(tmp_path: Path, figures: Figures) -> None:
    # Given a server, and runs that each queue two memory writes (input >= 80 characters, and the answer)
    data = LEDGER.data_dir("kill -9 server", tmp_path / "data")
    server = LocalServer(data).start()
    alice = Client(server, issue(data, "alice"))
    alice.call("PUT", "/v1/agents/keeper", KEEPER, expect=200)
    text = "Please remember fact number {n:02d}: the project code of the customer account is K-{n:04d}."
    inputs = [text.format(n=n) for n in range(RUNS)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(
            pool.map(lambda text: alice.call("POST", "/v1/runs", {"agent_id": "keeper", "input": text}), inputs)
        )
    assert [a["status"] for a in answers] == ["succeeded"] * RUNS  # acknowledged: their writes are queued
    # When the server is killed at once, before its writer drained the queue
    assert server.process is not None
    server.process.send_signal(signal.SIGKILL)
    server.process.wait()
    server.process = None
    before = _live_memories(data)
    # Then a restart writes every queued memory: none lost, none twice
    server = LocalServer(data).start()
    try:
        assert wait_until(lambda: _live_memories(data) >= 2 * RUNS, timeout=60), _live_memories(data)
        time.sleep(1.0)  # a duplicate would show up now
        assert _live_memories(data) == 2 * RUNS
    finally:
        server.stop()
    figures.set("local kill -9: memories written before the kill / after the restart", f"{before} / {2 * RUNS}")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from mneme_local.compose import build_local

    data = LEDGER.data_dir("in-process stack", Path(tmp_path_factory.mktemp("stack")) / "fresh" / "data")
    local = build_local(data, environ={"OPENBLAS_NUM_THREADS": "1"})
    try:
        yield local
    finally:
        local.close()


def _raw(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_the_in_process_moto_refuses_a_request_without_the_servers_secret(stack: object) -> None:
    url = stack.moto_url  # type: ignore[attr-defined]
    queue_url = stack.deps.settings.memory_queue_url  # type: ignore[attr-defined]
    job = {"job_id": "planted", "namespace": "vector.user.bob.memory", "owner_user_id": "bob", "content": "planted"}
    form = {"Action": "SendMessage", "QueueUrl": queue_url, "MessageBody": json.dumps(job), "Version": "2012-11-05"}
    body = urllib.parse.urlencode(form).encode()
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "AWS4-HMAC-SHA256 Credential=local",
    }
    # When another local process sends a memory job for bob straight to moto's queue
    status = _raw(url, body, headers)
    # Then it is refused (also with a wrong secret), while the stack's own clients still work
    assert status == 403
    assert _raw(url, body, {**headers, "X-Mneme-Local-Secret": "guessed"}) == 403
    assert stack.deps.queue is not None  # type: ignore[attr-defined]
    sqs = stack._sqs  # type: ignore[attr-defined]
    assert "Messages" not in sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)
    assert sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def test_the_data_folder_and_files_are_private(stack: object) -> None:
    from mneme_local.token import signing_key

    data: Path = stack.options.data_dir  # type: ignore[attr-defined]
    signing_key(data)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [data, data.parent, *data.iterdir()] if p.exists()}
    assert modes[data.name] == 0o700 and modes[data.parent.name] == 0o700  # both created here
    for name in ("mneme.sqlite3", "memory.sqlite3", "jwt-dev-key", "mneme.sqlite3-wal", "memory.sqlite3-wal"):
        assert modes.get(name) == 0o600, (name, oct(modes.get(name, 0)))


# ------------------------------------------------------------------------------------------ chunked bodies
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    local = LocalServer(LEDGER.data_dir("chunked server", Path(tmp_path_factory.mktemp("chunked")))).start()
    try:
        yield local
    finally:
        local.stop()


def _send(server: LocalServer, head: bytes, body: bytes, *, close: bool = False, wait: float = 10.0) -> bytes:
    """Send a raw request; answer the raw response (b"" when none came within ``wait``)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as sock:
        sock.sendall(head + body)
        if close:
            sock.shutdown(socket.SHUT_WR)
        try:
            return sock.recv(65536)
        except TimeoutError:
            return b""


def _chunked_head(server: LocalServer) -> bytes:
    token = issue(server.data_dir, "alice")
    return (
        b"POST /v1/memory/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    )


def test_a_negative_chunk_size_is_a_400_not_an_unbounded_read(server: LocalServer, figures: Figures) -> None:
    # "-1" made the server read until the client closed: past any cap, for as long as the client liked
    reply = _send(server, _chunked_head(server), b"-1\r\n" + b"x" * 1_000_000)
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    figures.add("local chunked bodies refused")


def test_chunks_declaring_more_than_the_cap_are_a_413_before_they_are_read(server: LocalServer) -> None:
    reply = _send(server, _chunked_head(server), b"A00001\r\n" + b"x" * 1000)  # 10 MiB + 1 declared
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]


@pytest.mark.parametrize(
    "body",
    [b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}X0\r\n\r\n", b"f" * 5000, b"5\r\n{}\r\n0\r\n\r\n"],
    ids=["not hex", "no CRLF after the chunk", "an endless size line", "a chunk shorter than its size"],
)
def test_a_malformed_chunked_body_is_a_400(server: LocalServer, body: bytes) -> None:
    reply = _send(server, _chunked_head(server), body, close=True)
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
