"""Measure — memory recall quality through the public API (issue 13.8), every retrieval mode in one run.

The dataset is generated in the repo (``bench/memory_dataset.py``: 10 conversations × 16 dated sessions,
1,600 turns, 310 questions with labelled evidence turns). A local server (``mneme_local.server``, the local
all-MiniLM-L6-v2 embedder, the embedded store) is started on a free loopback port; each conversation is one
user, each turn is written as a raw entry with ``POST /v1/memory/documents`` (``observed_at`` = the session
time, ``metadata.turn_id`` to score). Then, for every question and every mode side by side:

* ``POST /v1/memory/search`` with ``top_k`` 10 and no floors (``min_score`` 0, ``relative_cutoff`` 0):
  recall@5, recall@10 (share of evidence turns found), hit@10 (any evidence found), p50/p95 latency —
  for ``vector``, ``keyword`` (BM25), ``hybrid`` RRF and ``hybrid`` normalized-score fusion;
* the same with the calibrated default floors and with the old 0.4 / 0.7 floors (what each floor costs);
* the auto-inject path: one ``POST /v1/runs`` per question (offline model, top_k 5, the agent's policy
  choosing the mode), the memory block read back from ``GET /v1/runs/{id}/context``: evidence recall in
  the block and injected characters per query (unanswerable questions: characters injected for nothing).

Knowledge-update questions score the CURRENT value's turn; ``stale first`` counts questions whose old value
ranks above the current one. Run: ``.venv/bin/python bench/memory_quality.py [--conversations N]``.

This dataset is easy (planted one-line facts asked with their own words; see ``bench/conversations.py``): steer by the
hard one instead — ``bench/memory_quality_hard.py`` over HTTP, ``bench/recall_eval.py`` in process.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, median, pct, use_repo_paths
from local_server import Server, free_port, timed_call
from memory_dataset import Conversation, Question, dataset

use_repo_paths()

MODES: dict[str, dict[str, Any]] = {
    "vector": {"retrieval": "vector"},
    "keyword (BM25)": {"retrieval": "keyword"},
    "hybrid rrf": {"retrieval": "hybrid", "fusion": "rrf"},
    "hybrid score": {"retrieval": "hybrid", "fusion": "score"},
}
NO_FLOORS = {"min_score": 0, "relative_cutoff": 0}
OLD_FLOORS = {"min_score": 0.4, "relative_cutoff": 0.7}
CATEGORIES = ("single-hop", "multi-hop", "temporal", "knowledge-update", "preference", "unanswerable")


class Client:
    def __init__(self, server: Server) -> None:
        from mneme_local.token import issue

        self.server, self.issue, self.tokens = server, issue, {}
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)

    def call(self, user: str, method: str, path: str, body: Any = None) -> tuple[float, Any]:
        token = self.tokens.setdefault(user, self.issue(self.server.data, user))
        elapsed, data = timed_call(self.connection, token, method, path, body)
        return elapsed, json.loads(data) if data else None


def namespace(conv: Conversation) -> str:
    return f"vector.user.{conv.user}.memory"


def ingest(client: Client, conv: Conversation) -> None:
    for turn in conv.turns:
        body = {
            "namespace": namespace(conv),
            "content": turn.text,
            "observed_at": turn.at.isoformat(),
            "metadata": {"turn_id": turn.turn_id, "speaker": turn.speaker},
        }
        client.call(conv.user, "POST", "/v1/memory/documents", body)


FACTS_AGENT = {
    "label": "Diary",
    "description": "keeps what the user says",
    "model": {"provider": "offline", "model_id": "offline"},
    "memory_policy": {
        "auto_read_enabled": False,
        "allow_write": True,
        "write_namespace": "vector.user.${user_id}.facts",
        "extraction": ["raw", "facts", "preferences"],
    },
}


def ingest_by_runs(client: Client, conv: Conversation) -> dict[str, str]:
    """Each user turn as a run of an agent that auto-writes with ``facts`` extraction; run id → turn id."""
    client.call(conv.user, "PUT", "/v1/agents/diary", FACTS_AGENT)
    runs: dict[str, str] = {}
    for turn in conv.turns:
        if turn.speaker == "user":
            _, run = client.call(conv.user, "POST", "/v1/runs", {"agent_id": "diary", "input": turn.text})
            runs[run["run_id"]] = turn.turn_id
    return runs


def wait_for_writer(client: Client, data: list[Conversation], timeout: float = 300) -> dict[str, int]:
    """Poll the namespace counts until the memory writer has drained the queue (two equal readings)."""
    last: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(2)
        now = {}
        for conv in data:
            _, answer = client.call(conv.user, "GET", "/v1/memory/namespaces")
            now |= {n["namespace"]: n["active"] + n["superseded"] for n in answer["namespaces"]}
        if now and now == last:
            return now
        last = now
    raise RuntimeError("the memory writer did not drain the queue in time")


def search_facts(
    client: Client, data: list[Conversation], runs: dict[str, str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Search the run-written namespace; a hit counts for the turn whose run wrote (or extracted) it."""
    per_category: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies: list[float] = []
    for conv in data:
        for question in conv.questions:
            body = {"query": question.question, "namespaces": [f"vector.user.{conv.user}.facts"], "top_k": 10, **extra}
            elapsed, answer = client.call(conv.user, "POST", "/v1/memory/search", body)
            latencies.append(elapsed)
            turns = list(dict.fromkeys(runs.get(h["metadata"].get("run_id"), "?") for h in answer["hits"]))
            if question.evidence:
                per_category[question.category].append(score(question, turns))
    return {"scores": per_category, "latency": latencies, "chars": [], "unanswerable_chars": []}


def score(question: Question, ranked: list[str]) -> dict[str, float]:
    evidence = set(question.evidence)
    found = {k: len(evidence & set(ranked[:k])) / len(evidence) for k in (5, 10)}
    stale_first = False
    if question.stale:
        positions = {turn: i for i, turn in reversed(list(enumerate(ranked)))}
        current = min((positions[e] for e in evidence if e in positions), default=99)
        stale_first = min((positions[s] for s in question.stale if s in positions), default=99) < current
    return {"r5": found[5], "r10": found[10], "hit10": float(found[10] > 0), "stale_first": float(stale_first)}


def search_all(client: Client, data: list[Conversation], extra: dict[str, Any], top_k: int = 10) -> dict[str, Any]:
    per_category: dict[str, list[dict[str, float]]] = defaultdict(list)
    latencies: list[float] = []
    chars: list[int] = []
    wasted: list[int] = []
    for conv in data:
        for question in conv.questions:
            body = {"query": question.question, "namespaces": [namespace(conv)], "top_k": top_k, **extra}
            elapsed, answer = client.call(conv.user, "POST", "/v1/memory/search", body)
            latencies.append(elapsed)
            hits = answer["hits"]
            chars.append(sum(len(h["content"]) for h in hits[:5]))
            if not question.evidence:
                wasted.append(chars[-1])
            if question.evidence:
                per_category[question.category].append(score(question, [h["metadata"]["turn_id"] for h in hits]))
    return {"scores": per_category, "latency": latencies, "chars": chars, "unanswerable_chars": wasted}


def mean(values: list[float] | list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def overall(result: dict[str, Any], key: str) -> float:
    return mean([s[key] for scores in result["scores"].values() for s in scores])


def auto_inject(client: Client, data: list[Conversation], retrieval: str) -> dict[str, float]:
    """One run per question; the memory block of its model request scored against the evidence texts."""
    agent = {
        "label": f"Recall {retrieval}",
        "description": "answers from memory",
        "model": {"provider": "offline", "model_id": "offline"},
        "memory_policy": {"read_namespaces": ["vector.user.${user_id}.memory"], "retrieval": retrieval},
    }
    found: list[float] = []
    chars: list[int] = []
    wasted: list[int] = []
    for conv in data:
        texts = {t.turn_id: t.text for t in conv.turns}
        client.call(conv.user, "PUT", f"/v1/agents/recall-{retrieval}", agent)
        for question in conv.questions:
            _, run = client.call(
                conv.user, "POST", "/v1/runs", {"agent_id": f"recall-{retrieval}", "input": question.question}
            )
            _, context = client.call(conv.user, "GET", f"/v1/runs/{run['run_id']}/context")
            last = context["requests"][0]["messages"][-1]["content"]
            text = "\n".join(block.get("text", "") for block in last)
            block = text.split("RELEVANT CONTEXT FROM LONG-TERM MEMORY:", 1)[1] if "RELEVANT CONTEXT" in text else ""
            block = block.split("[Context — current date/time:", 1)[0]
            chars.append(len(block))
            if question.evidence:
                found.append(mean([float(texts[e] in block) for e in question.evidence]))
            else:
                wasted.append(len(block))
    return {"recall": mean(found), "chars": mean(chars), "unanswerable_chars": mean(wasted)}


def main(conversations: int = 10) -> dict[str, float]:
    data = dataset()[:conversations]
    turns, questions = sum(len(c.turns) for c in data), sum(len(c.questions) for c in data)
    header(f"memory recall quality ({len(data)} conversations, {turns} turns, {questions} questions, local MiniLM)")
    server = Server("memory quality", ["-m", "mneme_local.server"], free_port())
    figures: dict[str, float] = {}
    try:
        client = Client(server)
        start = time.perf_counter()
        for conv in data:
            ingest(client, conv)
        print(f"  ingested {turns} turns through POST /v1/memory/documents in {time.perf_counter() - start:.1f} s")
        results = {name: search_all(client, data, {**mode, **NO_FLOORS}) for name, mode in MODES.items()}
        print(
            f"\n  {'mode (no floors, top_k 10)':<28}{'recall@5':>9}{'recall@10':>10}{'hit@10':>8}"
            f"{'stale first':>12}{'chars@5':>9}{'p50':>9}{'p95':>9}"
        )
        for name, result in results.items():
            r5, r10, hit = (overall(result, k) for k in ("r5", "r10", "hit10"))
            stale = mean([s["stale_first"] for s in result["scores"]["knowledge-update"]])
            figures |= {f"{name}:recall@10": r10, f"{name}:recall@5": r5}
            print(
                f"  {name:<28}{r5:>9.3f}{r10:>10.3f}{hit:>8.3f}{stale:>12.2f}{mean(result['chars']):>9.0f}"
                f"{median(result['latency']) * 1000:>6.1f} ms{pct(result['latency'], 95) * 1000:>6.1f} ms"
            )
        print(f"\n  recall@10 by category{'':<6}" + "".join(f"{c[:12]:>13}" for c in CATEGORIES[:-1]))
        for name, result in results.items():
            row = "".join(f"{mean([s['r10'] for s in result['scores'][c]]):>13.3f}" for c in CATEGORIES[:-1])
            print(f"  {name:<28}{row}")
        print("\n  floors (top_k 10)                       recall@10   chars@5   chars@5 on unanswerable")
        sweep = [("calibrated", {}), ("0.4 / 0.7 (before)", OLD_FLOORS)]
        sweep += [(f"min_score {m}", {"min_score": m, "relative_cutoff": 0}) for m in (0.2, 0.3, 0.4, 0.5)]
        for name, mode in (("vector", MODES["vector"]), ("hybrid rrf", MODES["hybrid rrf"])):
            for label, floors in sweep:
                result = search_all(client, data, {**mode, **floors})
                figures[f"{name}:{label}:recall@10"] = overall(result, "r10")
                row = f"{overall(result, 'r10'):>9.3f}{mean(result['chars']):>10.0f}"
                print(f"  {name + ', ' + label:<40}{row}{mean(result['unanswerable_chars']):>12.0f}")
        print("\n  auto-inject (POST /v1/runs, top_k 5, calibrated floors): evidence in the memory block")
        for retrieval in ("vector", "hybrid"):
            inj = auto_inject(client, data, retrieval)
            figures[f"auto-inject {retrieval}:recall"] = inj["recall"]
            print(
                f"  {retrieval:<10} recall {inj['recall']:.3f}   injected chars/query {inj['chars']:.0f}"
                f"   on unanswerable questions {inj['unanswerable_chars']:.0f}"
            )
        start = time.perf_counter()
        runs: dict[str, str] = {}
        for conv in data:
            runs |= ingest_by_runs(client, conv)
        counts = wait_for_writer(client, data)
        stored = sum(v for k, v in counts.items() if k.endswith(".facts"))
        print(
            f"\n  with facts extraction: {len(runs)} user turns as POST /v1/runs (auto-write, extraction facts +"
            f" preferences), {stored} entries written in {time.perf_counter() - start:.1f} s"
        )
        for name in ("vector", "hybrid rrf"):
            result = search_facts(client, data, runs, {**MODES[name], **NO_FLOORS})
            stale = mean([s["stale_first"] for s in result["scores"]["knowledge-update"]])
            ku = mean([s["r10"] for s in result["scores"]["knowledge-update"]])
            figures[f"facts {name}:recall@10"] = overall(result, "r10")
            print(
                f"  {name:<12} recall@5 {overall(result, 'r5'):.3f}  recall@10 {overall(result, 'r10'):.3f}"
                f"  knowledge-update recall@10 {ku:.3f}  stale first {stale:.2f}"
                f"  p50 {median(result['latency']) * 1000:.1f} ms"
            )
        best = max(MODES, key=lambda n: figures[f"{n}:recall@10"])
        top, gain = figures[f"{best}:recall@10"], figures[f"{best}:recall@10"] - figures["vector:recall@10"]
        print(f"\n  winner on recall@10: {best} ({top:.3f}, {gain * 100:+.1f} points over vector)")
    finally:
        server.stop()
    return figures


def bench(full: bool) -> dict[str, float]:
    figures = main()
    if figures["hybrid rrf:recall@10"] < figures["vector:recall@10"]:
        raise AssertionError("the default retrieval (hybrid) recalls less than vector-only: change the default")
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=10)
    main(parser.parse_args().conversations)
