"""The command line's run commands: ``run``, ``runs`` and ``events --follow`` (a run followed to its end)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from mneme_client import models
from mneme_client.cli_output import print_json
from mneme_client.client import Client
from mneme_client.render import FollowPrinter, run_line, run_summary

#: the exit status of a follow stopped by Ctrl-C (128 + SIGINT, as shells report it)
INTERRUPTED = 130


def follow_run(client: Client, run_id: str, args: argparse.Namespace, out: TextIO) -> int:
    """Print the run's events until it is final, then its summary; Ctrl-C stops following, not the run."""
    printer = FollowPrinter(out, as_json=args.json, run_id=run_id)
    try:
        for item in client.follow(run_id, tree=args.tree):
            printer(item)
    except KeyboardInterrupt:
        out.flush()
        sys.stderr.write(
            f"\nmneme: stopped following {run_id}; the run goes on "
            f"(mneme events {run_id} --follow to resume, mneme cancel {run_id} to stop it)\n"
        )
        return INTERRUPTED
    run = client.get_run(run_id)
    out.write((run.model_dump_json() if args.json else run_summary(run)) + "\n")
    return 0 if run.status == "succeeded" else 1


def start_run(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    started = client.start_run(args.agent_id, args.text, task_id=args.task_id, chat_id=args.chat_id)
    if args.follow:
        return follow_run(client, started.run_id, args, out)
    if args.json:
        print_json(out, started)
    elif isinstance(started, models.RunView):
        out.write(run_summary(started) + "\n")
    else:
        out.write(f"run {started.run_id}: {started.status} (mneme events {started.run_id} --follow)\n")
    return 1 if started.status in ("failed", "cancelled") else 0


def list_runs(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    filters = {"status": args.status, "agent_id": args.agent_id, "chat_id": args.chat_id}
    filters |= {"since": args.since, "until": args.until}
    if args.all:
        page = models.RunListView(runs=list(client.iter_runs(**filters, page_size=args.limit)), cursor=None)
    else:
        page = client.list_runs(**filters, limit=args.limit)
    if args.json:
        print_json(out, page)
        return 0
    out.writelines(run_line(run) + "\n" for run in page.runs)
    if not page.runs:
        sys.stderr.write("mneme: no runs match\n")
    if page.cursor:
        sys.stderr.write("mneme: more runs than this page: add --all\n")
    return 0
