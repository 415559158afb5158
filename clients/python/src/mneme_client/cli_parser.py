"""The ``mneme`` command line's arguments: its commands, their options and their help texts."""

from __future__ import annotations

import argparse
from typing import get_args

from mneme_client import models

EXIT_STATUS = """exit status:
  0  success
  1  an error of the API other than a refused value (401, 403, 404, 409, 429, 5xx), a server that cannot be
     reached, a run that did not succeed, or a memory import with a line refused
  2  bad usage: an argument or file left out or unreadable, a body that is not JSON, a value refused before
     anything is sent or by the server (its 400 or 422 answer: e.g. runs --limit 0, runs --since yesterday)
  130  a follow stopped by Ctrl-C (the run goes on)"""


def parser() -> argparse.ArgumentParser:
    """Every command of ``mneme``, ``--json`` accepted after a command too."""
    parser = argparse.ArgumentParser(
        prog="mneme",
        description="The command line of mneme's HTTP API.",
        epilog="example: export MNEME_TOKEN=$(mneme token alice); mneme run planner 'When is the review?' --follow\n\n"
        + EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
