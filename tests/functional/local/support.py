"""Drive the local server (``python -m mneme_local.server``) as a subprocess over real HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mneme_local.aws_stand_ins import free_port

REPO = Path(__file__).resolve().parents[3]
PYTHONPATH = os.pathsep.join(str(REPO / p) for p in ("layers/mneme", "local", "functions/run"))
START_TIMEOUT = 45.0


def server_env(data_dir: Path, port: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
    env.update(extra or {})
    env.update(
        PYTHONPATH=PYTHONPATH,
        MNEME_DATA_DIR=str(data_dir),
        MNEME_PORT=str(port),
        MNEME_QUIET="1",
        OPENBLAS_NUM_THREADS="1",
    )
    return env


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.raw = body

    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None


class LocalServer:
    """One ``make run``-equivalent server process on a free loopback port."""

    def __init__(self, data_dir: Path, port: int | None = None, *, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.env = env or {}
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / f"server-{self.port}.log"

    def start(self) -> LocalServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mneme_local.server"],
                cwd=REPO,
                env=server_env(self.data_dir, self.port, self.env),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the local server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if self.request("GET", "/v1/health").status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the local server did not come up:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode
        self.process = None
        return code

    def token(self, user: str, *, admin: bool = False, hours: float | None = None) -> str:
        """A token from the token command (``python -m mneme_local.token``), as ``make token`` prints it."""
        args = [sys.executable, "-m", "mneme_local.token", "--user", user]
        if admin:
            args.append("--admin")
        if hours is not None:
            args.append(f"--hours={hours}")
        done = subprocess.run(
            args, cwd=REPO, env=server_env(self.data_dir, self.port), capture_output=True, text=True, check=True
        )
        lines = done.stdout.splitlines()
        assert len(lines) == 1, done.stdout
        return lines[0]

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return Response(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())


class Client:
    """One user's view of the server."""

    def __init__(self, server: LocalServer, token: str) -> None:
        self.server = server
        self.token = token

    def call(self, method: str, path: str, body: Any = None, *, expect: int | None = None) -> Any:
        response = self.server.request(method, path, body, token=self.token)
        if expect is not None:
            assert response.status == expect, (method, path, response.status, response.raw[:500])
        return response.json()

    def wait_run(self, run_id: str, *, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            run: dict[str, Any] = self.call("GET", f"/v1/runs/{run_id}", expect=200)
            if run["status"] in ("succeeded", "failed", "cancelled") or time.monotonic() > deadline:
                return run
            time.sleep(0.2)


def wait_until(predicate: Any, *, timeout: float = 20.0, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)
