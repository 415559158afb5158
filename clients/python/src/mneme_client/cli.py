"""``mneme``: the command line of mneme's HTTP API (over :class:`mneme_client.Client`).

The server is ``--url`` (``$MNEME_URL``, else ``http://127.0.0.1:$MNEME_PORT``, else ``:8000``), the token
``--token`` (``$MNEME_TOKEN``; ``mneme token alice`` prints a local development token). ``--json`` prints
the API's JSON instead of text. Exit status: 0 on success; 2 on bad usage — a file that cannot be read, a body
that is not JSON, a value refused before anything is sent or by the server (its 400 or 422 answer); 1 on any other
error (another error status of the API, a server that cannot be reached) or a run that did not succeed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

import httpx
from pydantic import ValidationError

from mneme_client.cli_input import InputError, exit_status, read_json, refused, said
from mneme_client.cli_memory import memory_command
from mneme_client.cli_output import need, print_json
from mneme_client.cli_parser import parser
from mneme_client.cli_runs import follow_run, list_runs, start_run
from mneme_client.client import Client, default_url
from mneme_client.errors import ClientError
from mneme_client.render import event_line, run_summary, usage_line
from mneme_client.token import local_token


def _agents(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action == "list":
        agents = client.list_agents()
        if args.json:
            print_json(out, agents)
        for agent in [] if args.json else agents:
            out.write(
                f"{agent.get('agent_id')}\t{agent.get('label', '')}\t{(agent.get('model') or {}).get('provider')}\n"
            )
    elif args.action == "get":
        print_json(out, client.get_agent(need(args, "agent_id")))
    elif args.action == "put":
        agent_id = need(args, "agent_id")
        print_json(out, client.put_agent(agent_id, read_json(need(args, "file"))))
    else:
        client.delete_agent(need(args, "agent_id"))
    return 0


def _dispatch(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "health":
        print_json(out, client.health())
    elif args.command == "agents":
        return _agents(client, args, out)
    elif args.command == "run":
        return start_run(client, args, out)
    elif args.command == "events" and args.follow:
        return follow_run(client, args.run_id, args, out)
    elif args.command == "events":
        page = client.all_events(args.run_id, tree=args.tree)
        lines = (event_line(event, args.run_id) + "\n" for event in page.events)
        print_json(out, page) if args.json else out.writelines(lines)
    elif args.command == "status":
        run = client.get_run(args.run_id)
        out.write((run.model_dump_json(indent=2) if args.json else f"{run_summary(run)}\n{usage_line(run)}") + "\n")
    elif args.command == "cancel":
        print_json(out, client.cancel_run(args.run_id))
    elif args.command == "approve":
        decision = "always" if args.always else "deny" if args.deny else "once"
        print_json(out, client.answer_approval(args.run_id, args.call_id, decision))
    elif args.command == "memory":
        return memory_command(client, args, out)
    elif args.command == "runs":
        return list_runs(client, args, out)
    else:
        _chats(client, args, out)
    return 0


def _chats(client: Client, args: argparse.Namespace, out: TextIO) -> None:
    if args.action == "list":
        chats = client.list_chats()
        print_json(out, chats) if args.json else out.writelines(
            f"{c.get('chat_id')}\t{c.get('title', '')}\n" for c in chats
        )
    elif args.action == "show":  # every message: the pages the API answers, joined
        chat = client.get_chat(need(args, "chat_id"))
        messages = list(chat.messages)
        while chat.cursor:
            chat = client.get_chat(args.chat_id, cursor=chat.cursor)
            messages += chat.messages
        print_json(out, chat.model_copy(update={"messages": messages, "cursor": None}))
    else:
        client.delete_chat(need(args, "chat_id"))


def _retrying(reason: str, wait: float) -> None:
    """A wait before a retry is said, so that a command waiting out a 429's Retry-After does not look hung."""
    sys.stderr.write(f"mneme: {reason}; retrying in {wait:g} s\n")


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = parser().parse_args(argv)
    try:
        if args.command == "token":
            out.write(local_token(args.user, admin=args.admin, hours=args.hours, folder=args.data_dir) + "\n")
            return 0
        with Client(args.url, args.token, on_retry=_retrying) as client:
            return _dispatch(client, args, out)
    except ClientError as error:
        sys.stderr.write(f"mneme: {said(error, args.token)}\n")
        return exit_status(error)
    except httpx.TransportError as error:
        sys.stderr.write(f"mneme: cannot reach {args.url or default_url()} ({error}): is the server running?\n")
    except (InputError, ValidationError, OSError) as error:  # the command's own input or output file
        sys.stderr.write(f"mneme: {error if isinstance(error, InputError) else refused(error)}\n")
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
