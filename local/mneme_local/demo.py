"""``make demo``: a guided tour of mneme against a running ``make run`` (SPEC §11, issue "local mode").

Two users; alice gets a settings profile, a skill, a master agent whose task context uses template
variables and who may delegate to a researcher sub-agent with its own task and memory policy. Memories are
written, a two-turn conversation runs (the second turn activates the skill and delegates; the researcher
searches memory), and the demo prints the assembled context of every model call, the memory hits, the
delegation tree with depths and usage, and the audit trail. Finally bob looks for alice's data and finds
none. Exit code 0 when every check holds, 1 otherwise (2 when the server is not reachable).

Tokens are minted with the server's development key (``MNEME_DATA_DIR``), like ``make token``.

The demo never overwrites what alice made herself (issue 33.6): its agents and skill have ``demo-`` ids and
``Demo`` labels (the README's own ``researcher`` and ``planner`` stay as they are), and her profile is set only
while she has none (no name saved); the memories it writes are added beside hers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from mneme_local.demo_support import Api, DemoFailed, check, heading, print_request, show
from mneme_local.token import data_dir_from_env, issue

RESEARCHER, PLANNER, SKILL = "demo-researcher", "demo-planner", "demo-review-checklist"


# ------------------------------------------------------------------------------------------------ setup
def configure(alice: Api, tag: str) -> None:
    heading("1. alice's profile, skill, agents and tasks")
    profile = alice.call("GET", "/v1/me/settings")
    if profile.get("name"):
        print(f"  settings: alice's own, left as they are ({profile.get('name')}, {profile.get('language')})")
    else:
        profile = {"name": "Alice Example", "email": "alice@example.com", "language": "de", "timezone": "Europe/Berlin"}
        alice.call("PUT", "/v1/me/settings", profile)
        print(f"  settings: {profile}")
    skill = {
        "description": "Checklist for project reviews: deadlines, owners, risks.",
        "when_to_use": "When the user prepares a project review.",
        "content": "1. Confirm the deadline. 2. Name the owner. 3. List the top three risks.",
    }
    alice.call("PUT", f"/v1/skills/{SKILL}", skill)
    print(f"  skill: {SKILL}")
    researcher = {
        "label": "Demo Researcher",
        "description": "Finds what alice's notes say about a topic.",
        "model": {"provider": "offline", "model_id": "offline"},
        "tools": ["memory-search"],
        "memory_policy": {
            "read_namespaces": ["vector.user.${user_id}.howto"],
            "tool_read_namespaces": ["vector.user.${user_id}.memory", "vector.user.${user_id}.howto"],
            "top_k": 3,
            "min_score": 0.2,
            "allow_write": True,
            "write_namespace": "vector.agent.${user_id}.memory",
        },
        "default_task_id": "research",
    }
    alice.call("PUT", f"/v1/agents/{RESEARCHER}", researcher)
    task = {
        "name": "Research",
        "context_prompt": "You are a careful researcher. Quote the notes you find, with their dates.",
        "memory_policy": {"top_k": 2},
    }
    alice.call("PUT", f"/v1/agents/{RESEARCHER}/tasks/research", task)
    print(f"  sub-agent: {RESEARCHER} (task 'research', own memory policy, tool memory-search)")
    master = {
        "label": "Demo Planner",
        "description": "Plans project reviews and delegates research.",
        "model": {"provider": "offline", "model_id": "offline"},
        "tools": ["delegate-to-agent", "memory-search"],
        "skills": [SKILL],
        "delegates": [RESEARCHER],
        "memory_policy": {"min_score": 0.2, "top_k": 3},
        "default_task_id": "review",
    }
    alice.call("PUT", f"/v1/agents/{PLANNER}", master)
    review = {
        "name": "Project review",
        "context_prompt": (
            "You help ${user_name} (${user_email}) prepare project reviews in chat ${chat_id}, "
            f"project ${{project_id}}. Demo {tag}."
        ),
    }
    saved = alice.call("PUT", f"/v1/agents/{PLANNER}/tasks/review", review)
    print(f"  master: {PLANNER} (task 'review' with template variables, skill, delegate {RESEARCHER})")
    for warning in saved.get("warnings") or []:
        print(f"    warning: {warning}")


def write_memories(alice: Api) -> dict[str, str]:
    heading("2. alice writes memories")
    entries = [
        ("vector.user.alice.memory", "The Apollo project review deadline is March 15; Alice owns the review."),
        ("vector.user.alice.memory", "Top Apollo risk: the supplier contract is not signed yet."),
        ("vector.user.alice.howto", "How to research a project: search the notes first, then quote them with dates."),
    ]
    contents: dict[str, str] = {}
    for namespace, content in entries:
        written = alice.call(
            "POST", "/v1/memory/documents", {"namespace": namespace, "content": content}, expect=(201,)
        )
        contents.update(dict.fromkeys(written["ids"], content))
        print(f"  {namespace:<28} {content}")
    return contents


def wait_run(api: Api, run_id: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        run: dict[str, Any] = api.call("GET", f"/v1/runs/{run_id}")
        if run["status"] in ("succeeded", "failed", "cancelled"):
            return run
        if time.monotonic() > deadline:
            raise DemoFailed(f"run {run_id} is still {run['status']} after {timeout:.0f} s")
        time.sleep(0.25)


def converse(alice: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    heading("3. a conversation: turn 1 on the fast path, turn 2 delegates through the state machine")
    first = alice.call(
        "POST", "/v1/runs", {"agent_id": PLANNER, "project_id": "apollo", "input": "I prepare the Apollo review."}
    )
    print(f"  turn 1 → {first['status']}: {first['output']!r}")
    text = f"/skill {SKILL}\n/delegate {RESEARCHER} :: /search Apollo project review deadline and risks"
    started = alice.call(
        "POST",
        "/v1/runs",
        {"agent_id": PLANNER, "chat_id": first["chat_id"], "input": text},
        expect=(200, 202),
    )
    print(f"  turn 2 → {started['status']} (run {started['run_id']})")
    second = wait_run(alice, started["run_id"])
    print(f"  turn 2 finished: {second['status']}")
    show("output", second.get("output") or second.get("error") or "", indent=2)
    check(first["status"] == "succeeded", "turn 1 succeeded on the fast path")
    check(second["status"] == "succeeded" and len(second["children"]) == 1, "turn 2 delegated once and succeeded")
    return first, second


def tree(alice: Api, run: dict[str, Any]) -> list[dict[str, Any]]:
    """The run and its descendants, depth first."""
    runs = [run]
    for child_id in run.get("children") or []:
        runs += tree(alice, alice.call("GET", f"/v1/runs/{child_id}"))
    return runs


def print_contexts(alice: Api, runs: list[dict[str, Any]]) -> None:
    heading("4. the assembled context of each model call (GET /v1/runs/{id}/context)")
    for run in runs:
        requests = alice.call("GET", f"/v1/runs/{run['run_id']}/context")["requests"]
        print(f"\n▶ run {run['run_id']}  agent={run['agent_id']}  depth={run['depth']}  calls={len(requests)}")
        for index, request in enumerate(requests, 1):
            print_request(index, request)


def print_memory_hits(alice: Api, runs: list[dict[str, Any]], contents: dict[str, str]) -> int:
    heading("5. memory hits (events memory_hits: auto-inject and the memory-search tool)")
    count = 0
    for run in runs:
        for event in alice.call("GET", f"/v1/runs/{run['run_id']}/events")["events"]:
            if event["type"] != "memory_hits":
                continue
            count += int(event.get("count") or 0)
            print(
                f"  run {run['run_id'][:8]} ({run['agent_id']}, depth {run['depth']}) via {event.get('via')}: "
                f"{event.get('count')} hit(s) from {event.get('namespaces')}"
            )
            for hit in event.get("hits") or []:
                relevance = hit.get("relevance")
                shown = "—" if relevance is None else f"{float(relevance):.3f}"
                print(f"      {shown}  {hit.get('namespace')}  {contents.get(hit.get('id'), hit.get('id'))}")
    return count


def print_tree(runs: list[dict[str, Any]]) -> None:
    heading("6. the delegation tree (depth, status, usage = this run, tree = the run and its descendants)")
    for run in runs:
        usage, whole = run["usage"], run.get("tree_usage") or run["usage"]
        print(
            f"  {'    ' * run['depth']}{'└─ ' if run['depth'] else ''}depth {run['depth']}  {run['agent_id']:<10} "
            f"{run['status']:<9} run={run['run_id'][:8]}  usage in/out={usage['input_tokens']}/"
            f"{usage['output_tokens']}  tree in/out={whole['input_tokens']}/{whole['output_tokens']}"
        )


def print_audit(alice: Api, since: str) -> list[dict[str, Any]]:
    heading("7. alice's audit trail since the demo started (GET /v1/audit, oldest first)")
    records = alice.call("GET", "/v1/audit?limit=100")["records"]
    mine = [r for r in records if str(r["at"]) >= since]
    for record in reversed(mine):
        detail = {k: v for k, v in (record.get("detail") or {}).items() if k not in ("query", "parent_run_id")}
        if "child_run_id" in detail:
            detail["child_run_id"] = str(detail["child_run_id"])[:8]
        print(
            f"  {record['at'][11:23]}  {record['action']:<11} depth={record['depth']}  "
            f"agent={record.get('agent_id') or '—':<10} ns={record.get('namespace') or '—'}  "
            + json.dumps(detail, ensure_ascii=False)
        )
    return mine


def isolation(bob: Api, alice_runs: list[dict[str, Any]], memory_ids: list[str]) -> None:
    heading("8. bob signs in: he sees none of alice's data")
    agents = [a["agent_id"] for a in bob.call("GET", "/v1/agents")["agents"]]
    check(not {PLANNER, RESEARCHER} & set(agents), f"bob's agents hold none of alice's ({agents})")
    skills = [s["name"] for s in bob.call("GET", "/v1/skills")["skills"]]
    check(SKILL not in skills, "bob does not see alice's skill")
    chats = {c["chat_id"] for c in bob.call("GET", "/v1/chats")["chats"]}
    check(not chats & {r["chat_id"] for r in alice_runs}, "bob does not see alice's chats")
    for run in alice_runs:
        bob.call("GET", f"/v1/runs/{run['run_id']}", expect=(404,))
        bob.call("GET", f"/v1/runs/{run['run_id']}/context", expect=(404,))
    check(True, "every run of alice's tree (and its context) is a 404 for bob")
    bob.call("POST", "/v1/runs", {"agent_id": PLANNER, "input": "hi"}, expect=(404,))
    check(True, "bob cannot run alice's agent (404)")
    found = bob.call("POST", "/v1/memory/search", {"query": "Apollo project review deadline", "top_k": 20})
    check(not {h["id"] for h in found["hits"]} & set(memory_ids), "bob's memory search finds none of alice's entries")
    asked = bob.call(
        "POST", "/v1/memory/search", {"query": "Apollo deadline", "namespaces": ["vector.user.alice.memory"]}
    )
    check(not asked["hits"], "naming alice's namespace explicitly gives bob nothing (the drop is audited)")
    records = bob.call("GET", "/v1/audit?limit=100")["records"]
    check(all(r["user_id"] != "alice" for r in records), f"bob's audit holds only his own records ({len(records)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make demo", description="A tour of mneme against `make run`.")
    port = os.environ.get("MNEME_PORT") or "8000"
    parser.add_argument("--url", default=f"http://127.0.0.1:{port}", help="the local server")
    args = parser.parse_args(argv)
    data_dir = data_dir_from_env()
    base = str(args.url).rstrip("/")
    try:
        with urllib.request.urlopen(base + "/v1/health", timeout=5) as response:
            response.read()
    except OSError as exc:
        print(f"make demo: no server at {base} ({exc}); start it first with `make run`", file=sys.stderr)
        return 2
    alice = Api(base, issue(data_dir, "alice"))
    bob = Api(base, issue(data_dir, "bob"))
    tag = time.strftime("%Y-%m-%d %H:%M:%S")
    since = datetime.now(UTC).isoformat()
    try:
        configure(alice, tag)
        contents = write_memories(alice)
        first, second = converse(alice)
        runs = [first, *tree(alice, second)]
        print_contexts(alice, runs)
        hits = print_memory_hits(alice, runs, contents)
        print_tree(runs)
        audit = print_audit(alice, since)
        heading("checks")
        child = runs[-1]
        check(child["depth"] == 1 and child["agent_id"] == RESEARCHER, "the researcher ran at depth 1")
        check(child["output"] in (second["output"] or ""), "the master's answer contains the researcher's answer")
        check("Apollo" in child["output"], "the researcher's memory search found alice's Apollo notes")
        check(hits > 0, f"auto-inject found memory hits ({hits})")
        check(any(r["action"] == "delegation" for r in audit), "the delegation is in the audit trail")
        check(any(r["action"] == "read" for r in audit), "memory reads are in the audit trail")
        isolation(bob, runs, list(contents))
    except DemoFailed as exc:
        print(f"\nmake demo FAILED: {exc}", file=sys.stderr)
        return 1
    heading("make demo: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
