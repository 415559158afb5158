"""Issue 31.7 on S3 (moto): an erasure removes the user's exports under their prefix — finished archives and
multipart uploads left in progress (aborted) — and says ``verified`` only when the listing is empty."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws

from mneme.adapters.aws.s3_exports import S3ExportStorage
from mneme.adapters.models.offline import OfflineModel
from mneme.engine.privacy.export import export_prefix
from tests.functional.api.conftest import Api
from tests.support.deps import World, make_world

BUCKET = "exports-bucket"


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1", config=Config(signature_version="s3v4"))
        client.create_bucket(Bucket=BUCKET)
        yield client


def _world(storage: S3ExportStorage) -> tuple[World, Api]:
    world = make_world(OfflineModel())
    world.deps.exports = storage
    return world, Api(world)


def _open_upload(s3: Any, user: str) -> str:
    """A multipart upload under the user's prefix with one part sent, never completed (a crash mid-upload)."""
    key = f"{export_prefix(user)}exp-crashed.ndjson"
    upload_id: str = s3.create_multipart_upload(Bucket=BUCKET, Key=key)["UploadId"]
    s3.upload_part(Bucket=BUCKET, Key=key, UploadId=upload_id, PartNumber=1, Body=b'{"kind":"settings"}\n' * 100)
    return key


def _listed(s3: Any, user: str) -> tuple[list[str], list[str]]:
    prefix = export_prefix(user)
    objects = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])]
    uploads = [u["Key"] for u in s3.list_multipart_uploads(Bucket=BUCKET, Prefix=prefix).get("Uploads", [])]
    return objects, uploads


def test_an_erasure_deletes_finished_archives_and_aborts_uploads_in_progress(s3: Any) -> None:
    # Given alice and bob each with a finished export and an upload a crash left open
    _, api = _world(S3ExportStorage(s3, BUCKET))
    for user in ("alice", "bob"):
        api.put("/v1/me/settings", {"name": user}, user=user)
        assert api.post("/v1/me/export", None, user=user).body["status"] == "ready"
        _open_upload(s3, user)
    assert all(_listed(s3, "alice"))
    # When alice is erased
    receipt = api.delete("/v1/me").body
    # Then nothing of hers is left under her prefix, and the receipt says so; bob's exports are untouched
    assert _listed(s3, "alice") == ([], [])
    assert receipt["status"] == "done" and receipt["verified"] is True
    objects, uploads = _listed(s3, "bob")
    assert len(objects) == 1 and len(uploads) == 1


class _ForgetsUploads(S3ExportStorage):
    """Deletes archives but never aborts an upload (what a role without AbortMultipartUpload would do)."""

    def erase_prefix(self, prefix: str) -> int:
        for key in [k for k in self.left_under(prefix) if not k.endswith("(upload in progress)")]:
            self.delete(key)
        return 0


def test_an_erasure_is_not_verified_while_an_upload_is_still_listed(s3: Any) -> None:
    _, api = _world(_ForgetsUploads(s3, BUCKET))
    api.put("/v1/me/settings", {"name": "alice"})
    _open_upload(s3, "alice")
    receipt = api.delete("/v1/me").body
    assert receipt["status"] == "done" and receipt["verified"] is False
    assert receipt["late"] == {"export_file": 1}
    assert _listed(s3, "alice")[1]  # still there: the receipt does not claim otherwise


def test_the_storage_lists_both_kinds_under_a_prefix_and_nothing_once_erased(s3: Any) -> None:
    storage = S3ExportStorage(s3, BUCKET)
    prefix = export_prefix("alice")
    storage.write(f"{prefix}exp-1.ndjson", [b"{}\n"])
    key = _open_upload(s3, "alice")
    storage.write(f"{export_prefix('bob')}exp-2.ndjson", [b"{}\n"])
    assert storage.left_under(prefix) == [f"{prefix}exp-1.ndjson", f"{key} (upload in progress)"]
    assert storage.erase_prefix(prefix) == 2
    assert storage.left_under(prefix) == []
    assert storage.left_under(export_prefix("bob")) == [f"{export_prefix('bob')}exp-2.ndjson"]


def test_without_an_export_bucket_there_is_nothing_to_erase_and_nothing_left(s3: Any) -> None:
    storage = S3ExportStorage(s3, "")
    assert (storage.erase_prefix(export_prefix("alice")), storage.left_under(export_prefix("alice"))) == (0, [])
