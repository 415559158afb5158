"""``mneme``: the command line of mneme's HTTP API (over :class:`mneme_client.Client`).

The server is ``--url`` (``$MNEME_URL``, else ``http://127.0.0.1:$MNEME_PORT``, else ``:8000``), the token
``--token`` (``$MNEME_TOKEN``; ``mneme token alice`` prints a local development token). ``--json`` prints
the API's JSON instead of text. Exit status: 0 on success, 1 on an API or connection error or a run that did
not succeed, 2 on bad usage (a file that cannot be read, a body that is not JSON, a value the request refuses).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO, get_args

import httpx
from pydantic import BaseModel, ValidationError

from mneme_client import models
from mneme_client.cli_input import InputError, read_json, read_text, refused, said
from mneme_client.client import Client, default_url
from mneme_client.errors import ClientError
from mneme_client.render import (
    FollowPrinter,
    document_json,
    event_line,
    hit_lines,
    run_line,
    run_summary,
    usage_line,
)
from mneme_client.token import local_token


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mneme",
        description="The command line of mneme's HTTP API.",
        epilog="example: export MNEME_TOKEN=$(mneme token alice); mneme run planner 'When is the review?' --follow",
    )
    parser.add_argument("--url", default=None, help="the API's base URL (default: $MNEME_URL or the local server)")
    parser.add_argument("--token", default=None, help="the bearer token (default: $MNEME_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    token = commands.add_parser("token", help="print a local development token (the local server's key)")
    token.add_argument("user", help="the user id (the token's sub)")
    token.add_argument("--admin", action="store_true", help="add the admin group")
    token.add_argument("--hours", type=_hours, default=12.0, help="validity in hours (default 12)")
    token.add_argument("--data-dir", default=None, help="the server's data folder ($MNEME_DATA_DIR, .local-data)")

    commands.add_parser("health", help="the server's liveness and version")

    agents = commands.add_parser("agents", help="list, show, save or delete agents")
    agents.add_argument("action", choices=("list", "get", "put", "delete"))
    agents.add_argument("agent_id", nargs="?")
    agents.add_argument("file", nargs="?", help="put: the agent's JSON body (a file, or - for stdin)")

    run = commands.add_parser("run", help="start a run of an agent")
    run.add_argument("agent_id")
    run.add_argument("text", help="the input (the user's message)")
    run.add_argument("--task", dest="task_id", default=None)
    run.add_argument("--chat", dest="chat_id", default=None)
    run.add_argument("--follow", action="store_true", help="stream the run's events until it ends")
    run.add_argument("--tree", action="store_true", help="with --follow: the sub-agents' events too")

    events = commands.add_parser("events", help="a run's events (--follow: stream them until it ends)")
    events.add_argument("run_id")
    events.add_argument("--follow", action="store_true")
    events.add_argument("--tree", action="store_true")

    status = commands.add_parser("status", help="a run's status, output and usage")
    status.add_argument("run_id")
    cancel = commands.add_parser("cancel", help="cancel a run and its unfinished sub-agents")
    cancel.add_argument("run_id")
    approve = commands.add_parser("approve", help="answer a run's pending tool approval (its approval_requested)")
    approve.add_argument("run_id")
    approve.add_argument("call_id", help="the call's id, as approval_requested lists it")
    answer = approve.add_mutually_exclusive_group()
    answer.add_argument("--always", action="store_true", help="and remember it for this agent and tool")
    answer.add_argument("--deny", action="store_true", help="refuse the call")

    _runs_parser(commands.add_parser("runs", help="the caller's runs, newest first: id, status, agent, created, cost"))
    _memory_parser(commands.add_parser("memory", help="search, write, import or export long-term memory"))

    chats = commands.add_parser("chats", help="list chats or show one")
    chats.add_argument("action", choices=("list", "show", "delete"))
    chats.add_argument("chat_id", nargs="?")
    _json_everywhere(parser)
    return parser


def _hours(text: str) -> float:
    """A token's validity: a number of hours above 0 and at most ten years (an expired token is no token)."""
    hours = float(text)
    if not 0 < hours <= 87_600:  # NaN fails it too
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of hours above 0 (at most 87600)")
    return hours


def _json_everywhere(parser: argparse.ArgumentParser) -> None:
    """``--json`` after a command too (``mneme memory search apollo --json``), not only before it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                if "--json" not in command._option_string_actions:
                    command.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
                _json_everywhere(command)


def _memory_parser(memory: argparse.ArgumentParser) -> None:
    actions = memory.add_subparsers(dest="action", required=True, metavar="ACTION")
    search = actions.add_parser("search", help="search the caller's memory")
    search.add_argument("query")
    search.add_argument("-n", "--namespace", action="append", dest="namespaces", help="repeatable")
    search.add_argument("-k", "--top-k", type=int, default=None)
    search.add_argument("--lines", action="store_true", help="each chat line with the lines said around it")
    write = actions.add_parser("write", help="store an entry")
    write.add_argument("namespace")
    write.add_argument("content")
    write.add_argument("--tag", action="append", dest="tags")
    write.add_argument("--ttl", type=int, dest="ttl_seconds", default=None, help="seconds until it expires")
    export = actions.add_parser("export", help="every document as NDJSON (default: all the caller's namespaces)")
    export.add_argument("-n", "--namespace", action="append", dest="namespaces", help="repeatable")
    export.add_argument("-o", "--output", default=None, help="a file (default: stdout)")
    actions.add_parser("namespaces", help="the caller's namespaces with their counts")
    load = actions.add_parser(
        "import",
        help="store NDJSON entries in batches; importing a file again stores nothing twice; "
        "an export's chunks are stored as the one entry they were",
    )
    load.add_argument(
        "file", help='one JSON object a line: {"content", "namespace"?, "observed_at"?, "tags"?} (- for stdin)'
    )
    load.add_argument("-n", "--namespace", default=None, help="the namespace of lines without one")


def _runs_parser(runs: argparse.ArgumentParser) -> None:
    runs.add_argument("--status", choices=get_args(models.RunStatus.model_fields["root"].annotation))
    runs.add_argument("--agent", dest="agent_id", default=None)
    runs.add_argument("--chat", dest="chat_id", default=None)
    runs.add_argument("--since", default=None, help="at or after (ISO 8601, UTC if no offset; a date: from its start)")
    runs.add_argument("--until", default=None, help="at or before (ISO 8601, UTC if no offset; a date: its whole day)")
    runs.add_argument("--limit", type=int, default=None, help="runs per page (the server's default: 50)")
    runs.add_argument("--all", action="store_true", help="every page, not only the first")


def _print(out: TextIO, value: Any) -> None:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _need(args: argparse.Namespace, name: str) -> str:
    """An argument the action needs though the parser lets it out (``agents get``): bad usage, exit 2."""
    value = getattr(args, name)
    if not value:
        raise InputError(f"{args.command} {args.action}: {name} is required")
    return str(value)


def _agents(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action == "list":
        agents = client.list_agents()
        if args.json:
            _print(out, agents)
        for agent in [] if args.json else agents:
            out.write(
                f"{agent.get('agent_id')}\t{agent.get('label', '')}\t{(agent.get('model') or {}).get('provider')}\n"
            )
    elif args.action == "get":
        _print(out, client.get_agent(_need(args, "agent_id")))
    elif args.action == "put":
        agent_id = _need(args, "agent_id")
        _print(out, client.put_agent(agent_id, read_json(_need(args, "file"))))
    else:
        client.delete_agent(_need(args, "agent_id"))
    return 0


def _follow(client: Client, run_id: str, args: argparse.Namespace, out: TextIO) -> int:
    printer = FollowPrinter(out, as_json=args.json)
    for item in client.follow(run_id, tree=args.tree):
        printer(item)
    run = client.get_run(run_id)
    out.write((run.model_dump_json() if args.json else run_summary(run)) + "\n")
    return 0 if run.status == "succeeded" else 1


def _run(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    started = client.start_run(args.agent_id, args.text, task_id=args.task_id, chat_id=args.chat_id)
    if args.follow:
        return _follow(client, started.run_id, args, out)
    if args.json:
        _print(out, started)
    elif isinstance(started, models.RunView):
        out.write(run_summary(started) + "\n")
    else:
        out.write(f"run {started.run_id}: {started.status} (mneme events {started.run_id} --follow)\n")
    return 1 if started.status in ("failed", "cancelled") else 0


def _runs(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    filters = {"status": args.status, "agent_id": args.agent_id, "chat_id": args.chat_id}
    filters |= {"since": args.since, "until": args.until}
    if args.all:
        page = models.RunListView(runs=list(client.iter_runs(**filters, page_size=args.limit)), cursor=None)
    else:
        page = client.list_runs(**filters, limit=args.limit)
    if args.json:
        _print(out, page)
        return 0
    out.writelines(run_line(run) + "\n" for run in page.runs)
    if not page.runs:
        sys.stderr.write("mneme: no runs match\n")
    if page.cursor:
        sys.stderr.write("mneme: more runs than this page: add --all\n")
    return 0


def _memory(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action == "search":
        view = client.search_memory(args.query, namespaces=args.namespaces, top_k=args.top_k, lines=args.lines)
        if args.json:
            _print(out, view)
        else:
            out.write("".join(line + "\n" for line in hit_lines(view)) or "no hits\n")
    elif args.action == "write":
        written = client.write_memory(args.namespace, args.content, tags=args.tags, ttl_seconds=args.ttl_seconds)
        _print(out, written) if args.json else out.write(" ".join(written.ids) + "\n")
    elif args.action == "import":
        return _import(client, args, out)
    elif args.action == "namespaces":
        spaces = client.memory_namespaces()
        if args.json:
            _print(out, spaces)
        for entry in [] if args.json else spaces.namespaces:
            out.write(f"{entry.namespace}\t{entry.active} active\n")
    else:
        documents = client.export_memory(args.namespaces)
        if not args.output:
            out.writelines(document_json(document) + "\n" for document in documents)
            return 0
        with Path(args.output).open("w", encoding="utf-8") as target:
            count = sum(target.write(document_json(document) + "\n") > 0 for document in documents)
        out.write(f"exported {count} document(s) to {args.output}\n")
    return 0


def _import(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """Every line stored, or said why not (by line number); exit 1 if a line was refused or is not JSON."""
    text = read_text(args.file)
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    items = []
    for number, raw in numbered:
        try:
            items.append(json.loads(raw))
        except ValueError:
            sys.stderr.write(f"mneme: line {number} is not JSON: nothing imported\n")
            return 1
        if not isinstance(items[-1], dict):
            sys.stderr.write(f"mneme: line {number} is not a JSON object: nothing imported\n")
            return 1
    results = []  # each line's result, numbered as in the file
    for result in sorted(client.import_memory(items, namespace=args.namespace), key=lambda result: result.index):
        line = numbered[result.index][0]
        if result.error:
            reason = f"{result.error.get('code')}: {result.error.get('message')}"
            sys.stderr.write(f"mneme: line {line} refused ({result.status} {reason})\n")
        results.append({"line": line} | result.model_dump(mode="json", exclude_none=True, exclude={"index"}))
    kinds = [
        "refused" if r.get("error") else "already stored" if r.get("replayed") or r.get("refreshed") else "stored"
        for r in results
    ]
    counts = {what: kinds.count(what) for what in ("stored", "already stored", "refused")}
    if args.json:
        _print(out, {"counts": counts, "results": results})
    else:
        out.write(f"{len(items)} line(s): " + ", ".join(f"{count} {what}" for what, count in counts.items()) + "\n")
    return 1 if counts["refused"] else 0


def _dispatch(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "health":
        _print(out, client.health())
    elif args.command == "agents":
        return _agents(client, args, out)
    elif args.command == "run":
        return _run(client, args, out)
    elif args.command == "events" and args.follow:
        return _follow(client, args.run_id, args, out)
    elif args.command == "events":
        page = client.run_events(args.run_id, tree=args.tree)
        _print(out, page) if args.json else out.writelines(event_line(event) + "\n" for event in page.events)
    elif args.command == "status":
        run = client.get_run(args.run_id)
        out.write((run.model_dump_json(indent=2) if args.json else f"{run_summary(run)}\n{usage_line(run)}") + "\n")
    elif args.command == "cancel":
        _print(out, client.cancel_run(args.run_id))
    elif args.command == "approve":
        decision = "always" if args.always else "deny" if args.deny else "once"
        _print(out, client.answer_approval(args.run_id, args.call_id, decision))
    elif args.command == "memory":
        return _memory(client, args, out)
    elif args.command == "runs":
        return _runs(client, args, out)
    else:
        _chats(client, args, out)
    return 0


def _chats(client: Client, args: argparse.Namespace, out: TextIO) -> None:
    if args.action == "list":
        chats = client.list_chats()
        _print(out, chats) if args.json else out.writelines(
            f"{c.get('chat_id')}\t{c.get('title', '')}\n" for c in chats
        )
    elif args.action == "show":  # every message: the pages the API answers, joined
        chat = client.get_chat(_need(args, "chat_id"))
        messages = list(chat.messages)
        while chat.cursor:
            chat = client.get_chat(args.chat_id, cursor=chat.cursor)
            messages += chat.messages
        _print(out, chat.model_copy(update={"messages": messages, "cursor": None}))
    else:
        client.delete_chat(_need(args, "chat_id"))


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = _parser().parse_args(argv)
    try:
        if args.command == "token":
            out.write(local_token(args.user, admin=args.admin, hours=args.hours, folder=args.data_dir) + "\n")
            return 0
        with Client(args.url, args.token) as client:
            return _dispatch(client, args, out)
    except ClientError as error:
        sys.stderr.write(f"mneme: {said(error, args.token)}\n")
    except httpx.TransportError as error:
        sys.stderr.write(f"mneme: cannot reach {args.url or default_url()} ({error}): is the server running?\n")
    except (InputError, ValidationError, OSError) as error:  # the command's own input or output file
        sys.stderr.write(f"mneme: {error if isinstance(error, InputError) else refused(error)}\n")
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
