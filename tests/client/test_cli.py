"""The ``mneme`` command line against a real local server, and installed from the repo by pip."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from mneme_client import Client, cli, local_token, render
from mneme_local.aws_stand_ins import free_port
from tests.functional.local.support import REPO, LocalServer


@pytest.fixture
def env(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> str:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("MNEME_URL", server.base)
    monkeypatch.setenv("MNEME_DATA_DIR", str(server.data_dir))
    monkeypatch.delenv("MNEME_TOKEN", raising=False)
    token = _mneme("token", user)[1].strip()
    monkeypatch.setenv("MNEME_TOKEN", token)
    return user


def _mneme(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def _agent(tmp_path: Path) -> None:
    body = tmp_path / "agent.json"
    body.write_text(json.dumps({"label": "Helper", "tools": ["memory-search"]}), encoding="utf-8")
    assert _mneme("agents", "put", "helper", str(body))[0] == 0


def test_token_prints_one_line_the_server_accepts(env: str) -> None:
    code, listed = _mneme("--json", "agents", "list")
    assert (code, json.loads(listed)) == (0, [])


def test_a_bad_token_is_an_error_exit(
    env: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEME_TOKEN", "not-a-token")
    assert _mneme("agents", "list")[0] == 1
    assert "401 unauthorized" in capsys.readouterr().err


def test_run_follow_streams_events_then_the_output(env: str, tmp_path: Path) -> None:
    _agent(tmp_path)
    code, printed = _mneme("run", "helper", "/search apollo", "--follow")
    lines = printed.splitlines()
    assert code == 0
    assert lines[0] == "[1] run_started"
    assert any(line.endswith("tool_call memory-search success") for line in lines)
    assert any("] completed succeeded" in line for line in lines)
    summary = next(i for i, line in enumerate(lines) if line.startswith("run ") and line.endswith(": succeeded"))
    assert lines[summary + 1] == "offline: tool results:"


def test_run_without_follow_prints_the_output(env: str, tmp_path: Path) -> None:
    _agent(tmp_path)
    code, printed = _mneme("run", "helper", "hello")
    assert code == 0
    assert printed.splitlines()[-1] == "offline: hello"


def test_run_of_an_unknown_agent_fails_with_the_apis_error(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _mneme("run", "nobody", "hello")[0] == 1
    assert "404" in capsys.readouterr().err


def test_memory_write_search_export(env: str, tmp_path: Path) -> None:
    code, written = _mneme("memory", "write", f"vector.user.{env}.memory", "The Apollo review is due on March 15.")
    assert code == 0
    doc_id = written.strip()
    code, found = _mneme("memory", "search", "When is the Apollo review due?")
    assert code == 0 and doc_id in found and "March 15" in found
    target = tmp_path / "memory.ndjson"
    assert _mneme("memory", "export", "-o", str(target)) == (0, f"exported 1 document(s) to {target}\n")
    assert [json.loads(line)["id"] for line in target.read_text(encoding="utf-8").splitlines()] == [doc_id]


def test_memory_search_with_lines_prints_a_chat_line_between_the_lines_said_around_it(env: str) -> None:
    namespace = f"vector.user.{env}.memory"
    said = ("Joanna: I finished my first screenplay!", "Nate: What genre is it?", "Joanna: A mix of drama and romance.")
    for content in said:
        assert _mneme("memory", "write", namespace, content)[0] == 0
    code, plain = _mneme("memory", "search", said[0], "-k", "1")
    assert code == 0 and "drama" not in plain
    code, found = _mneme("memory", "search", said[0], "-k", "1", "--lines")
    assert code == 0
    assert found.splitlines()[1:] == [f"     > {said[0]}", f"       {said[1]}", f"       {said[2]}"]


def test_an_unreachable_server_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("MNEME_TOKEN", "x")
    assert _mneme("--url", url, "agents", "list")[0] == 1
    assert f"cannot reach {url}" in capsys.readouterr().err


def test_pip_installs_the_package_with_its_mneme_command(tmp_path: Path) -> None:
    target = tmp_path / "site"
    source = shutil.copytree(
        REPO / "clients/python", tmp_path / "src", ignore=shutil.ignore_patterns("build", "*.egg-info")
    )
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*pip, "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert (target / "mneme_client" / "py.typed").exists()
    helped = subprocess.run(
        [str(target / "bin" / "mneme"), "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(target)},
        check=False,
    )
    assert helped.returncode == 0, helped.stderr
    for command in ("token", "run", "runs", "memory", "agents", "chats"):
        assert command in helped.stdout


def _started(tmp_path: Path, count: int) -> list[str]:
    _agent(tmp_path)
    with Client() as client:  # $MNEME_URL and $MNEME_TOKEN: the same user as the CLI
        return [client.start_run("helper", f"run {n}").run_id for n in range(count)]


def test_runs_status_failed_prints_the_failed_run_only(env: str, tmp_path: Path) -> None:
    succeeded = _started(tmp_path, 1)[0]
    with Client() as client:
        failed = client.start_run("helper", "/search apollo", budget={"max_model_calls": 1})
    code, printed = _mneme("runs", "--status", "failed")
    assert code == 0
    (line,) = printed.splitlines()
    run_id, status, agent, created, cost = line.split("\t")
    assert (run_id, status, agent, cost) == (failed.run_id, "failed", "helper", "$0.0000")
    assert created.startswith("20")
    assert succeeded not in _mneme("runs", "--status", "failed")[1]
    assert succeeded in _mneme("runs", "--status", "succeeded")[1]


def test_runs_all_prints_every_run_exactly_once(env: str, tmp_path: Path) -> None:
    started = _started(tmp_path, 5)
    code, printed = _mneme("runs", "--all", "--limit", "2")
    assert code == 0
    assert [line.split("\t")[0] for line in printed.splitlines()] == started[::-1]


def test_runs_without_all_prints_one_page_and_says_there_is_more(
    env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = _started(tmp_path, 3)
    code, printed = _mneme("runs", "--limit", "2")
    assert code == 0
    assert [line.split("\t")[0] for line in printed.splitlines()] == started[:0:-1]
    assert "add --all" in capsys.readouterr().err
    assert _mneme("runs", "--limit", "3")[0] == 0
    assert "add --all" not in capsys.readouterr().err


def test_runs_json_is_the_apis_page(env: str, tmp_path: Path) -> None:
    started = _started(tmp_path, 2)
    code, printed = _mneme("--json", "runs", "--all", "--limit", "1")
    body = json.loads(printed)
    assert code == 0
    assert (body["cursor"], [run["run_id"] for run in body["runs"]]) == (None, started[::-1])
    assert body["runs"][0]["tree_usage"]["output_tokens"] > 0
    assert json.loads(_mneme("--json", "runs", "--limit", "1")[1])["cursor"] is not None


def test_runs_never_prints_another_users_runs(env: str, server: LocalServer) -> None:
    stranger = f"other-{uuid.uuid4().hex[:8]}"
    with Client(server.base, local_token(stranger, folder=server.data_dir)) as other:
        other.put_agent("helper", {"label": "Helper"})
        theirs = other.start_run("helper", "hello").run_id
        assert [run.run_id for run in other.list_runs().runs] == [theirs]
    assert _mneme("runs", "--all") == (0, "")
    assert json.loads(_mneme("--json", "runs")[1])["runs"] == []


def test_runs_refuses_an_unknown_status(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _mneme("runs", "--status", "bogus")
    assert exited.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_memory_import_stores_a_file_and_a_second_import_stores_nothing_twice(env: str, tmp_path: Path) -> None:
    source = tmp_path / "turns.ndjson"
    lines = [{"content": "Maria: I moved to Porto.", "observed_at": "2026-03-01T10:00:00Z"}, {"content": "Kim: Nice!"}]
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    namespace = f"vector.user.{env}.memory"
    assert _mneme("memory", "import", str(source), "-n", namespace) == (
        0,
        "2 line(s): 2 stored, 0 already stored, 0 refused\n",
    )
    assert _mneme("memory", "import", str(source), "-n", namespace) == (
        0,
        "2 line(s): 0 stored, 2 already stored, 0 refused\n",
    )


def test_memory_import_of_an_export_into_the_same_memory_says_already_stored(env: str, tmp_path: Path) -> None:
    # Given two entries written one by one, exported (before: each import said "2 stored" and refreshed them)
    namespace = f"vector.user.{env}.memory"
    for text in ("The Apollo review is due on March 15.", "Kate: the kickoff moved to Monday."):
        assert _mneme("memory", "write", namespace, text)[0] == 0
    exported = tmp_path / "export.ndjson"
    assert _mneme("memory", "export", "-o", str(exported))[0] == 0
    # When the export is imported back, twice
    for _ in range(2):
        assert _mneme("memory", "import", str(exported)) == (0, "2 line(s): 0 stored, 2 already stored, 0 refused\n")


def _fine_then(user: str, folder: Path, after: str) -> Path:
    """An NDJSON file: a line the import stores, then ``after``."""
    source = folder / "turns.ndjson"
    source.write_text(f'{{"content": "fine", "namespace": "vector.user.{user}.memory"}}\n{after}\n', encoding="utf-8")
    return source


def test_memory_import_names_a_refused_line_and_exits_1(
    env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _fine_then(env, tmp_path, '\n{"content": ""}')
    assert _mneme("memory", "import", str(source)) == (1, "2 line(s): 1 stored, 0 already stored, 1 refused\n")
    assert "line 3 refused (400 invalid_input: namespace: Field required)" in capsys.readouterr().err


def test_memory_import_of_a_line_that_is_not_json_imports_nothing(
    env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _fine_then(env, tmp_path, "not json")
    assert _mneme("memory", "import", str(source)) == (1, "")
    assert "line 2 is not JSON: nothing imported" in capsys.readouterr().err
    assert _mneme("memory", "namespaces")[1] == ""


def test_memory_import_json_numbers_each_result_by_its_line_in_the_file(env: str, tmp_path: Path) -> None:
    source = _fine_then(env, tmp_path, '\n{"content": ""}')
    code, printed = _mneme("--json", "memory", "import", str(source))
    answer = json.loads(printed)
    assert code == 1
    assert answer["counts"] == {"stored": 1, "already stored": 0, "refused": 1}
    assert [(r["line"], r["status"]) for r in answer["results"]] == [(1, 201), (3, 400)]


def test_memory_import_of_an_export_with_a_missing_chunk_names_each_of_its_lines_in_file_order(
    env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = " ".join(f"Sentence {n} of the quarterly plan." for n in range(60))
    assert _mneme("memory", "write", f"vector.user.{env}.memory", long)[0] == 0
    exported = tmp_path / "export.ndjson"
    assert _mneme("memory", "export", "-o", str(exported))[0] == 0
    lines = exported.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if json.loads(line)["chunk_index"] != 1]  # one chunk lost
    whole = json.dumps({"content": "whole", "namespace": f"vector.user.{env}.memory"})
    exported.write_text("\n".join([*kept, whole]), encoding="utf-8")
    code, printed = _mneme("--json", "memory", "import", str(exported))
    answer = json.loads(printed)
    assert code == 1
    assert [(r["line"], r["status"]) for r in answer["results"]] == [
        *((n, 400) for n in range(1, len(kept) + 1)),
        (len(kept) + 1, 201),
    ]
    entry = next(line["id"] for line in map(json.loads, kept) if line["chunk_index"] == 0)  # listed in any order
    assert f"line 1 refused (400 incomplete_entry: entry {entry} is exported in" in capsys.readouterr().err


def _waiting_run(tmp_path: Path) -> tuple[Client, str, str]:
    """A run of an agent that asks before each tool call, waiting for the approval of its memory search."""
    body = tmp_path / "careful.json"
    body.write_text(json.dumps({"label": "Careful", "tools": ["memory-search"], "tool_approval_default": "prompt"}))
    assert _mneme("agents", "put", "careful", str(body))[0] == 0
    client = Client()
    run_id = client.start_run("careful", "/search apollo").run_id
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        asked = [e for e in client.run_events(run_id).events if e.type == "approval_requested"]
        if asked:
            return client, run_id, str((asked[0].model_extra or {})["calls"][0]["call_id"])
        time.sleep(0.1)
    raise AssertionError("no approval_requested")


def test_events_show_the_call_an_approval_waits_for_and_approve_answers_it(env: str, tmp_path: Path) -> None:
    client, run_id, call_id = _waiting_run(tmp_path)
    # The pending call is named with its id and how to answer it (before: "[n] approval_requested" alone)
    asked = next(render.event_line(e) for e in client.run_events(run_id).events if e.type == "approval_requested")
    assert "memory-search" in asked and call_id in asked and "mneme approve" in asked
    # When it is approved from the command line
    assert _mneme("approve", run_id, call_id)[0] == 0
    # Then the run goes on and succeeds
    deadline = time.monotonic() + 30
    while client.get_run(run_id).status != "succeeded" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.get_run(run_id).status == "succeeded"


def test_approve_deny_refuses_the_call(env: str, tmp_path: Path) -> None:
    client, run_id, call_id = _waiting_run(tmp_path)
    assert _mneme("approve", run_id, call_id, "--deny")[0] == 0
    deadline = time.monotonic() + 30
    while client.get_run(run_id).status not in ("succeeded", "failed") and time.monotonic() < deadline:
        time.sleep(0.1)
    denied = [e for e in client.run_events(run_id).events if e.type == "tool_call"]
    assert any((e.model_extra or {}).get("status") == "error" for e in denied)


def test_json_is_taken_after_the_command_too(env: str) -> None:
    assert _mneme("memory", "search", "apollo", "--json")[0] == 0
    code, listed = _mneme("agents", "list", "--json")
    assert (code, json.loads(listed)) == (0, [])


def test_events_print_one_line_an_event_and_json_with_json(env: str, tmp_path: Path) -> None:
    _agent(tmp_path)
    run_id = Client().start_run("helper", "hello").run_id
    code, printed = _mneme("events", run_id)
    assert code == 0 and printed.splitlines()[0] == "[1] run_started"
    assert json.loads(_mneme("--json", "events", run_id)[1])["events"][0]["type"] == "run_started"


def test_runs_that_match_nothing_say_so(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _mneme("runs", "--status", "failed") == (0, "")
    assert "no runs match" in capsys.readouterr().err


def test_status_prints_the_status_output_and_usage(env: str, tmp_path: Path) -> None:
    _agent(tmp_path)
    run_id = Client().start_run("helper", "hello").run_id
    code, printed = _mneme("status", run_id)
    lines = printed.splitlines()
    assert code == 0 and lines[0] == f"run {run_id}: succeeded" and lines[1] == "offline: hello"
    assert lines[2].startswith("usage: input ") and lines[2].endswith(" tokens")


def test_ctrl_c_while_following_stops_the_follow_not_the_run_and_says_so(
    env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _agent(tmp_path)

    def interrupted(self: Client, run_id: str, *, tree: bool = False) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(Client, "follow", interrupted)
    code, _ = _mneme("run", "helper", "hello", "--follow")
    said = capsys.readouterr().err
    assert code == 130
    run_id = said.split("stopped following ")[1].split(";")[0]
    assert f"mneme cancel {run_id}" in said and "Traceback" not in said
    with Client(token=os.environ["MNEME_TOKEN"]) as client:
        assert client.get_run(run_id).status != "cancelled"
