"""Send an EventBridge event file to the running local server: ``make event FILE=events/<name>.json``.

``python -m mneme_local.send_event events/eventbridge-run-requested.json`` posts the event to
``http://127.0.0.1:$MNEME_PORT/_local/events`` (see :mod:`mneme_local.local_events`) with an admin token of
the data folder's development key, prints the answer (the run id and status, or the rejection) and exits
0 when the event started or found its run, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from mneme_local.local_events import LOCAL_EVENTS_PATH
from mneme_local.token import DEFAULT_DATA_DIR, issue

DEFAULT_PORT = 8000
SENDER = "local-event-sender"


def send(path: Path, *, port: int, data_dir: Path, timeout: float = 120.0) -> tuple[int, str]:
    """POST the event file; answers (HTTP status, body text)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{LOCAL_EVENTS_PATH}",
        data=path.read_bytes(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {issue(data_dir, SENDER, admin=True)}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mneme_local.send_event", description=__doc__.splitlines()[0])
    parser.add_argument(
        "file", type=Path, help="an EventBridge event (JSON), e.g. events/eventbridge-run-requested.json"
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("MNEME_PORT") or DEFAULT_PORT))
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("MNEME_DATA_DIR") or DEFAULT_DATA_DIR))
    args = parser.parse_args(argv)
    if not args.file.is_file():
        parser.error(f"{args.file} is not a file")
    try:
        status, text = send(args.file, port=args.port, data_dir=args.data_dir)
    except OSError as exc:
        sys.stderr.write(f"no local server on 127.0.0.1:{args.port} ({exc}): start it with `make run`\n")
        return 1
    with contextlib.suppress(ValueError):  # not JSON: print it as it came
        text = json.dumps(json.loads(text), indent=2)
    (sys.stdout if status == 200 else sys.stderr).write(text + "\n")
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
