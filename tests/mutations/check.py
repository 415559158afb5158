"""Mutation check for the test gaps of issue 19: every mutant below must be killed by the tests named for it.

    .venv/bin/python -m tests.mutations.check [--list] [NAME ...]      (or: make mutations)

The repository is copied to a temporary directory (the working tree is never modified). Each mutant is a text
patch of one source file of the copy; the named test files run against the patched copy, then the file is
restored. A mutant counts as killed only when pytest exits 1 (tests failed, not a collection error) and **each**
named test file has a failing test — so every level a rule is pinned at (the pure function, a run through the
engine, the HTTP handler) has to notice it. Before any mutant, the same tests must pass on the unpatched copy.

Exit status 0: the baseline passed and every mutant was killed. 1: a mutant survived, a patch no longer applies
(the source moved: update the mutant here), or the baseline failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "layers/mneme/mneme"
SKIP = shutil.ignore_patterns(
    ".git", ".venv", ".venv-sam", "node_modules", ".aws-sam", ".mypy_cache", ".ruff_cache", ".hypothesis", "__pycache__"
)

LIMITS = ("tests/functional/engine/test_run_limits.py", "tests/functional/api/test_run_limits.py")
READ_LISTS = ("tests/functional/engine/test_read_lists_never_mixed.py",)
RANKING = ("tests/unit/memory/test_ranking_on_relevance.py", "tests/functional/engine/test_ranking_in_runs.py")
AUTO_WRITE = (
    "tests/unit/memory/test_autowrite_padding.py",
    "tests/functional/engine/test_auto_write_threshold.py",
    "tests/functional/api/test_auto_write_threshold.py",
)
AUDIT_CHAIN = ("tests/functional/adapters/test_audit_chain.py",)
TAKE_BACK = ("tests/functional/engine/test_cancel_turn.py",)
UNAUDITED = (
    "tests/functional/api/test_memory_write_taken_back.py",
    "tests/functional/engine/test_memory_tool_audit_down.py",
)
AUDITED = ("engine/memory_io/audited_writes.py",)
STANDING = ("tests/functional/engine/test_standing_memories.py",)
CONDITIONAL = (
    "tests/functional/adapters/test_conditional_config_writes.py",
    "tests/functional/api/test_conditional_writes.py",
)
REVISIONS = (
    "tests/functional/adapters/test_config_revisions_store.py",
    "tests/functional/api/test_config_revisions.py",
)
PINNED = ("tests/functional/engine/test_pinned_config.py", "tests/functional/engine/test_mcp_discovery.py")
WORDS_AND_VECTOR = ("tests/functional/memory/test_words_and_vector.py", "tests/unit/memory/test_hybrid_confidence.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # below the package
    old: str  # must occur exactly once in the file
    new: str
    tests: tuple[str, ...]


MUTANTS = (
    # 9. SPEC §8: 50 tool calls per run; the same call repeated more than 3 times aborts the loop
    Mutant("call-budget-removed", "engine/runs/loop.py", "state.tool_calls > MAX_TOOL_CALLS_PER_RUN", "False", LIMITS),
    Mutant(
        "call-budget-off-by-one",
        "engine/runs/loop.py",
        "state.tool_calls > MAX_TOOL_CALLS_PER_RUN",
        "state.tool_calls >= MAX_TOOL_CALLS_PER_RUN",
        LIMITS,
    ),
    Mutant(
        "repeat-limit-removed",
        "engine/runs/loop.py",
        "state.call_counts[signature] > MAX_IDENTICAL_TOOL_CALLS",
        "False",
        LIMITS,
    ),
    Mutant(
        "repeat-limit-off-by-one",
        "engine/runs/loop.py",
        "state.call_counts[signature] > MAX_IDENTICAL_TOOL_CALLS",
        "state.call_counts[signature] >= MAX_IDENTICAL_TOOL_CALLS",
        LIMITS,
    ),
    # 10. SPEC §5.1: the two read lists are never mixed (in the access decision, or where the engine calls it)
    Mutant(
        "auto-inject-reads-tool-list",
        "memory/access.py",
        "_policy_read(policy.read_namespaces, scope)",
        "_policy_read([*policy.read_namespaces, *policy.tool_read_namespaces], scope)",
        READ_LISTS,
    ),
    Mutant(
        "engine-auto-inject-reads-tool-list",
        "engine/runs/prepare.py",
        "auto_inject_access(state.policy, session.scope)",
        "auto_inject_access(state.policy.model_copy(update={'read_namespaces': "
        "(*state.policy.read_namespaces, *state.policy.tool_read_namespaces)}), session.scope)",
        READ_LISTS,
    ),
    Mutant(
        "tool-search-falls-back-on-read-list",
        "memory/access.py",
        "resolve_patterns(policy.tool_read_namespaces, values)",
        "resolve_patterns(policy.tool_read_namespaces or policy.read_namespaces, values)",
        READ_LISTS,
    ),
    Mutant(
        "engine-tool-search-falls-back-on-read-list",
        "engine/runs/tools.py",
        "tool_search_access(session.state.policy, session.scope,",
        "tool_search_access(session.state.policy.model_copy(update={'tool_read_namespaces': "
        "session.state.policy.tool_read_namespaces or session.state.policy.read_namespaces}), session.scope,",
        READ_LISTS,
    ),
    # 11. SPEC §5.3: min_score and the relative cutoff apply to relevance, not to similarity
    Mutant(
        "min-score-on-similarity",
        "memory/ranking.py",
        "if score < min_score:",
        "if candidate.similarity < min_score:",
        RANKING,
    ),
    Mutant(
        "cutoff-on-similarity",
        "memory/ranking.py",
        "floor = kept[0].relevance * relative_cutoff\n        kept = [hit for hit in kept if hit.relevance >= floor]",
        "floor = kept[0].similarity * relative_cutoff\n        kept = [hit for hit in kept if hit.similarity >= floor]",
        RANKING,
    ),
    Mutant(
        "cutoff-floor-from-similarity",
        "memory/ranking.py",
        "floor = kept[0].relevance * relative_cutoff",
        "floor = kept[0].similarity * relative_cutoff",
        RANKING,
    ),
    Mutant(
        "cutoff-compares-similarity",
        "memory/ranking.py",
        "if hit.relevance >= floor",
        "if hit.similarity >= floor",
        RANKING,
    ),
    # 12. SPEC §5.5: the input threshold of 80 characters, surrounding whitespace not counted
    Mutant(
        "auto-write-counts-padding",
        "memory/autowrite.py",
        "if len(text_in) >= AUTO_WRITE_MIN_INPUT_CHARS:",
        "if len(user_input) >= AUTO_WRITE_MIN_INPUT_CHARS:",
        AUTO_WRITE,
    ),
    Mutant(
        "auto-write-ignores-inner-spaces",
        "memory/autowrite.py",
        "if len(text_in) >= AUTO_WRITE_MIN_INPUT_CHARS:",
        'if len("".join(text_in.split())) >= AUTO_WRITE_MIN_INPUT_CHARS:',
        AUTO_WRITE,
    ),
    # issue 34: the audit chain never accepts two records at one position
    Mutant(
        "audit-chain-accepts-a-fork",
        "adapters/dynamo/audit_chain.py",
        "elif len(found) > 1:",
        "elif False:",
        AUDIT_CHAIN,
    ),
    # issue 34: a run that does not succeed takes its stored chat turn back, on a crash and on a cancel
    Mutant(
        "turn-kept-on-crash",
        "engine/runs/step_end.py",
        "session.ending.crash = reason\n    commit.take_back_turn(session)",
        "session.ending.crash = reason",
        TAKE_BACK,
    ),
    Mutant(
        "turn-kept-on-cancel",
        "engine/runs/commit.py",
        "    if stored is not None:\n        take_back_turn(session)",
        "    if stored is not None:\n        pass",
        TAKE_BACK,
    ),
    # SPEC §9: no memory written, corrected or deleted without its audit record
    Mutant("unaudited-write-kept", *AUDITED, "store.hard_delete(created(documents, ids))", "pass", UNAUDITED),
    Mutant(
        "revisionless-entry-kept",
        "engine/memory_io/revisions.py",
        "self.inner.hard_delete(created([document for document, _ in items], ids))",
        "pass",
        UNAUDITED[:1],
    ),
    Mutant(
        "removed-entry-keeps-its-history",
        "engine/memory_io/revisions.py",
        "self.revisions.forget(owner, doc_ids)",
        "pass",
        ("tests/functional/memory/test_store_revisions.py",),
    ),
    Mutant(
        "tool-change-before-its-audit",
        *AUDITED,
        "append_audit(ports.audit, records(action, [namespace], **detail))\n        return operation()",
        "return (operation(), append_audit(ports.audit, records(action, [namespace], **detail)))[0]",
        UNAUDITED[1:],
    ),
    Mutant(
        "delete-before-its-audit",
        *AUDITED,
        "    append_audit(ports.audit, records)\n    with _by_tool(detail, trail.scope.run_id, update=True):\n"
        "        return store.soft_delete(target.id, target.namespace, now=ports.clock.now())",
        "    with _by_tool(detail, trail.scope.run_id, update=True):\n"
        "        deleted = store.soft_delete(target.id, target.namespace, now=ports.clock.now())\n"
        "    append_audit(ports.audit, records)\n    return deleted",
        UNAUDITED,
    ),
    Mutant(
        "correction-before-its-audit",
        "engine/memory_io/inbox.py",
        '    _audit(deps, caller, "update", document.namespace, id=doc_id, changed=asked)'
        "  # first: no change unaudited\n",
        "",
        UNAUDITED[:1],
    ),
    # standing memories: only where auto-inject reads, only live entries
    Mutant(
        "standing-ignores-auto-read-switch",
        "memory/access.py",
        "_policy_read(policy.standing_namespaces, scope) if policy.auto_read_enabled else ReadAccess()",
        "_policy_read(policy.standing_namespaces, scope)",
        STANDING,
    ),
    Mutant(
        "standing-shows-dead-entries",
        "engine/memory_io/standing.py",
        "if whole(doc) and not unusable_reason(doc, now)",
        "if whole(doc)",
        STANDING,
    ),
    # conditional requests: a stale If-Match is a 412, also when a write lands between the check and the put
    Mutant(
        "stale-if-match-accepted",
        "adapters/dynamo/conditional_put.py",
        "precondition.require(tag)",
        "pass",
        CONDITIONAL,
    ),
    Mutant(
        "write-in-between-accepted",
        "adapters/dynamo/conditional_put.py",
        'condition = AttrEquals("data", current["data"]) if current is not None else "not_exists"',
        "condition = None",
        CONDITIONAL[:1],  # the race is staged at the store (the API tests cannot interleave two requests)
    ),
    # the history of agents, tasks and skills: every save through the API is a revision
    Mutant(
        "save-without-revision",
        "adapters/dynamo/conditional_put.py",
        'revision = [revision_put(key, item["data"], "saved", revision_at, by=revision_by)] if revision_at else []',
        "revision = []",
        REVISIONS,
    ),
    Mutant(
        "task-deleted-without-revision",
        "adapters/dynamo/conditional_put.py",
        'ops += [revision_put((keys[0][0], other[SK]), other["data"], "deleted", at, by=by) for other in kept]',
        "pass",
        REVISIONS[:1],
    ),
    # a waiting run runs the configuration it started with, narrowed to what its agent still grants
    Mutant(
        "waiting-run-reloads-its-agent",
        "engine/runs/service.py",
        "    if state.config is not None:\n        return pinned_config.narrowed(",
        "    if False:\n        return pinned_config.narrowed(",
        PINNED[:1],
    ),
    Mutant(
        "revocation-ignored",
        "engine/runs/pinned_config.py",
        "return RunConfig(pinned.settings, kept, pinned.task, pinned.skills)",
        "return pinned",
        PINNED,
    ),
    Mutant(
        "revoked-tool-still-runs",
        "engine/runs/loop.py",
        "call.tool != ACTIVATE_SKILL and call.tool not in enabled_tools(session)",
        "False",
        PINNED[:1],
    ),
    Mutant(
        "joint-counts-the-names",
        "engine/memory_io/retrieval.py",
        "bm25.coverage(bm25.counts_of(c.document), names)",
        "bm25.coverage(bm25.counts_of(c.document))",
        WORDS_AND_VECTOR[:1],
    ),
    Mutant(
        "joint-pairs-two-memories",
        "memory/calibration.py",
        "for cosine, coverage in evidence\n",
        "for cosine, coverage in [(max(e[0] for e in evidence), max(e[1] for e in evidence))]\n",
        WORDS_AND_VECTOR,
    ),
    # this stop's rules (2026-12-08): each pinned over HTTP (or through the state machine) where it is wired
    Mutant(
        "write-kept-across-erasure",
        "engine/memory_io/audited_writes.py",
        "        erasure_guard.undo_if_erased(ports, documents, ids)\n",
        "",
        ("tests/functional/privacy/test_erasure_during_http_write.py",),
    ),
    Mutant(
        "if-match-blind-to-plain-change",
        "engine/memory_io/expected_version.py",
        "if now != expected[doc_id]:",
        "if False:",
        ("tests/functional/api/test_memory_conditional_interleaved.py",),
    ),
    Mutant(
        "lost-child-awaited-again",
        "engine/runs/loop.py",
        "if refused or ended or child is None",
        "if refused or child is None",
        ("tests/functional/statemachine/test_delegation_chain.py",),
    ),
    Mutant(
        "summary-call-uncounted",
        "engine/runs/prepare.py",
        "    budget.charge_model_call(session, call.usage)\n",
        "",
        ("tests/functional/api/test_summary_counted.py",),
    ),
    Mutant(
        "global-history-shown-whole",
        "engine/revision_history.py",
        "if owner is None and not caller.is_admin:",
        "if False:",
        ("tests/functional/api/test_global_revisions.py",),
    ),
    Mutant(
        "waiting-run-takes-another-owners-agent",
        "engine/runs/pinned_config.py",
        "if now.owner != agent.owner:",
        "if False:",
        ("tests/functional/engine/test_pinned_config.py", "tests/functional/mcp/test_global_secret_pinned.py"),
    ),
    Mutant(
        "always-grant-for-any-owner",
        "ports/runs.py",
        "return self.agent_owner is None or self.agent_owner == agent_owner",
        "return True",
        ("tests/functional/api/test_remembered_approvals.py",),
    ),
    Mutant(
        "large-chat-message-unsplit",
        "adapters/dynamo/item_parts.py",
        'if len(data.encode("utf-8", "surrogatepass")) <= DATA_BYTES:',
        "if True:",
        (
            "tests/functional/api/test_large_chat_messages.py",
            "tests/functional/adapters/test_dynamo_chat_large_messages.py",
        ),
    ),
    Mutant(
        "error-message-unbounded",
        "errors.py",
        "        message = bounded_message(message)\n",
        "",
        ("tests/unit/test_error_messages.py",),  # over HTTP the values met so far fail pydantic's validation_text
    ),
    Mutant(
        "cancelled-tree-drops-uncollected-usage",
        "engine/runs/cancel.py",
        "        run.tree_usage = run.tree_usage + _uncollected(deps, state.waiting_children)\n",
        "",
        ("tests/functional/api/test_cancelled_tree_cost.py",),
    ),
)

_FAILED = re.compile(r"^FAILED (\S+?)::(\S+)")


@dataclass(frozen=True)
class Outcome:
    code: int
    failed: dict[str, list[str]]  # test file -> failing test names
    tail: str


def pytest_in(copy: Path, tests: tuple[str, ...]) -> Outcome:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *tests]
    done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=600, check=False)
    failed: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        if match := _FAILED.match(line):
            failed.setdefault(match.group(1), []).append(match.group(2).split(" ")[0])
    return Outcome(done.returncode, failed, "\n".join(done.stdout.splitlines()[-3:] + done.stderr.splitlines()[-3:]))


def check(copy: Path, mutant: Mutant) -> tuple[bool, str]:
    """Apply, test, restore. Returns (killed, what to print)."""
    source = copy / PACKAGE / mutant.path
    original = source.read_text()
    found = original.count(mutant.old)
    if found != 1:
        return False, f"STALE    the patch matches {found} times in {mutant.path} (update this mutant)"
    source.write_text(original.replace(mutant.old, mutant.new))
    try:
        outcome = pytest_in(copy, mutant.tests)
    finally:
        source.write_text(original)
    silent = [test for test in mutant.tests if test not in outcome.failed]
    if outcome.code != 1:
        state = "SURVIVED" if outcome.code == 0 else f"ERROR    pytest exit {outcome.code}:\n{outcome.tail}"
        return False, state
    if silent:
        return False, "SURVIVED in " + ", ".join(silent)
    killers = "; ".join(f"{test.removeprefix('tests/')}::{names[0]}" for test, names in outcome.failed.items())
    return True, f"killed   ({sum(map(len, outcome.failed.values()))} failing, e.g. {killers})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to check (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    if args.list:
        for mutant in MUTANTS:
            print(f"{mutant.name:45} {mutant.path}")
        return 0
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutants: {', '.join(sorted(unknown))}")
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mneme-mutants-") as scratch:
        copy = Path(scratch) / "repo"
        shutil.copytree(ROOT, copy, ignore=SKIP)
        tests = tuple(dict.fromkeys(test for m in chosen for test in m.tests))
        baseline = pytest_in(copy, tests)
        if baseline.code != 0:
            print(f"baseline failed (pytest exit {baseline.code}): the tests must pass unmutated\n{baseline.tail}")
            return 1
        print(f"baseline: {len(tests)} test files pass unmutated")
        results = []
        for mutant in chosen:
            killed, line = check(copy, mutant)
            results.append(killed)
            print(f"{mutant.name:45} {line}", flush=True)
    survived = results.count(False)
    print(f"{len(results) - survived}/{len(results)} mutants killed in {time.monotonic() - started:.0f} s")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
