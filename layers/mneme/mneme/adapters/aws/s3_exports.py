"""ExportStorage on S3: an export archive is one private object, downloaded with a presigned URL.

The archive is spooled to a temporary file (memory up to 32 MB, then ``/tmp``) while it is built, then sent
with one ``PutObject`` streamed from that file (up to 5 GB, S3's limit for one request; a plain botocore
client does it, no boto3 transfer manager is needed): the archive's text is never all in memory. The
bucket is private (public access blocked, TLS only, no versioning, so an erasure's delete is final) and a
lifecycle rule expires archives (template.yaml). The download URL is a presigned GET signed by the
caller's role, valid ``expires_in`` seconds, that asks S3 to answer with ``Content-Disposition: attachment``.

An erasure lists the user's prefix (``exports/<digest of the user id>/``) — archives, and multipart uploads
in progress, whose parts are the user's data too though no object shows them — deletes the archives, aborts
the uploads and lists again (issue 31.7): ``ListBucket`` with that prefix, ``ListBucketMultipartUploads``,
``AbortMultipartUpload`` and ``DeleteObject`` under ``exports/`` (template.yaml, the privacy function).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from mneme.errors import StoreUnavailable
from mneme.observability import traced

CONTENT_TYPE = "application/x-ndjson"
_SPOOL_BYTES = 32 * 1024 * 1024
_MAX_PUT_BYTES = 5 * 1024**3


class S3ExportStorage:
    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    def _require(self) -> None:
        if not self._bucket:
            raise StoreUnavailable("no export bucket is configured")

    @traced("s3.put_export")
    def write(self, key: str, lines: Iterable[bytes]) -> int:
        self._require()
        with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
            size = 0
            for line in lines:
                size += spool.write(line)
            spool.seek(0)
            if size > _MAX_PUT_BYTES:
                raise StoreUnavailable(f"the export is {size} bytes, more than one S3 PutObject takes")
            try:
                self._client.put_object(
                    Bucket=self._bucket,
                    Key=key,
                    Body=spool,
                    ContentLength=size,
                    ContentType=CONTENT_TYPE,
                    ServerSideEncryption="AES256",
                )
            except (ClientError, BotoCoreError) as exc:
                raise StoreUnavailable(f"the export could not be stored: {exc}") from exc
        return size

    def url(self, key: str, *, filename: str, expires_in: int) -> str:
        self._require()
        params = {
            "Bucket": self._bucket,
            "Key": key,
            "ResponseContentDisposition": f'attachment; filename="{filename}"',
            "ResponseContentType": CONTENT_TYPE,
        }
        try:
            url: str = self._client.generate_presigned_url("get_object", Params=params, ExpiresIn=expires_in)
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"no download link could be made: {exc}") from exc
        return url

    def delete(self, key: str) -> None:
        self._require()
        try:
            self._client.delete_object(Bucket=self._bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"the export could not be deleted: {exc}") from exc

    def _objects(self, prefix: str) -> Iterator[str]:
        for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self._bucket, Prefix=prefix):
            yield from (str(obj["Key"]) for obj in page.get("Contents") or [])

    def _uploads(self, prefix: str) -> Iterator[tuple[str, str]]:
        for page in self._client.get_paginator("list_multipart_uploads").paginate(Bucket=self._bucket, Prefix=prefix):
            yield from ((str(up["Key"]), str(up["UploadId"])) for up in page.get("Uploads") or [])

    def erase_prefix(self, prefix: str) -> int:
        if not self._bucket:
            return 0  # no export bucket in this deployment: no archive can exist
        try:
            uploads, keys = list(self._uploads(prefix)), list(self._objects(prefix))
            for key, upload_id in uploads:
                self._client.abort_multipart_upload(Bucket=self._bucket, Key=key, UploadId=upload_id)
            for key in keys:
                self._client.delete_object(Bucket=self._bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"the exports could not be erased: {exc}") from exc
        return len(uploads) + len(keys)

    def left_under(self, prefix: str) -> list[str]:
        if not self._bucket:
            return []
        try:
            return [*self._objects(prefix), *(f"{key} (upload in progress)" for key, _ in self._uploads(prefix))]
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"the exports could not be listed: {exc}") from exc
