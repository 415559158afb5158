"""The local data folder is private (issue 12.13): folders mneme creates are 0700, files 0600.

SQLite creates a database's ``-wal`` and ``-shm`` files with the database file's permissions, so a database
file created here first (0600) keeps its journal private too. An existing folder is left as it is (it may
be one the user chose to share, such as ``/tmp``); what mneme creates inside it is private.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | Path) -> Path:
    """``path`` and its missing parents, created 0700."""
    folder = Path(path)
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for created in reversed(missing):
        created.mkdir(mode=DIR_MODE, exist_ok=True)
        created.chmod(DIR_MODE)  # mkdir's mode is masked by the umask
    return folder


def private_file(path: str | Path) -> Path:
    """``path`` created empty with mode 0600 when it does not exist yet (its folder 0700 if missing)."""
    file = Path(path)
    private_dir(file.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    return file


def private_writer(path: str | Path) -> BinaryIO:
    """``path`` opened to be written anew, 0600 from its first byte whatever the umask, and also over a file a
    crash left (``fchmod``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, "wb")
