"""Local export archives (issue 31 defect 7): 0600 whatever the umask or a partial a crash left; a delete
removes the partial archive too."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mneme_local.file_exports import LocalFileExports

KEY = "exports/" + "a" * 32 + "/exp-1.ndjson"


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    old = os.umask(0)
    yield
    os.umask(old)


def test_an_archive_is_0600_under_a_permissive_umask(tmp_path: Path, permissive_umask: None) -> None:
    exports = LocalFileExports(tmp_path, "http://127.0.0.1:1")
    exports.write(KEY, [b"line\n"])
    assert exports.path(KEY).stat().st_mode & 0o777 == 0o600


def test_the_folders_an_archive_is_written_in_are_0700(tmp_path: Path, permissive_umask: None) -> None:
    exports = LocalFileExports(tmp_path, "http://127.0.0.1:1")
    exports.write(KEY, [b"line\n"])
    assert (tmp_path / "exports").stat().st_mode & 0o777 == 0o700
    assert exports.path(KEY).parent.stat().st_mode & 0o777 == 0o700


def test_an_archive_written_over_a_0644_partial_is_0600(tmp_path: Path, permissive_umask: None) -> None:
    exports = LocalFileExports(tmp_path, "http://127.0.0.1:1")
    partial = exports.path(KEY).with_suffix(".partial")
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"half")
    partial.chmod(0o644)
    exports.write(KEY, [b"whole\n"])
    assert exports.path(KEY).stat().st_mode & 0o777 == 0o600
    assert exports.path(KEY).read_bytes() == b"whole\n"


def test_a_delete_removes_the_partial_archive_of_an_interrupted_export(tmp_path: Path) -> None:
    exports = LocalFileExports(tmp_path, "http://127.0.0.1:1")
    partial = exports.path(KEY).with_suffix(".partial")
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"the user's data, half written")
    exports.delete(KEY)
    assert not partial.exists()
