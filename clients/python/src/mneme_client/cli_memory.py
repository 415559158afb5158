"""The command line's ``memory`` commands: search, write, namespaces, export and import."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from mneme_client.cli_input import read_text
from mneme_client.cli_output import print_json
from mneme_client.client import Client
from mneme_client.render import document_json, hit_lines


def memory_command(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action == "search":
        view = client.search_memory(args.query, namespaces=args.namespaces, top_k=args.top_k, lines=args.lines)
        if args.json:
            print_json(out, view)
        else:
            out.write("".join(line + "\n" for line in hit_lines(view)) or "no hits\n")
    elif args.action == "write":
        written = client.write_memory(args.namespace, args.content, tags=args.tags, ttl_seconds=args.ttl_seconds)
        print_json(out, written) if args.json else out.write(" ".join(written.ids) + "\n")
    elif args.action == "import":
        return import_lines(client, args, out)
    elif args.action == "namespaces":
        spaces = client.memory_namespaces()
        if args.json:
            print_json(out, spaces)
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


def import_lines(client: Client, args: argparse.Namespace, out: TextIO) -> int:
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
        print_json(out, {"counts": counts, "results": results})
    else:
        out.write(f"{len(items)} line(s): " + ", ".join(f"{count} {what}" for what, count in counts.items()) + "\n")
    return 1 if counts["refused"] else 0
