"""One memory entry through the client (sync and async): read with its etag, patched and deleted under
``if_match``, its revisions, and why it is recalled — against a real local server."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from mneme_client import ApiError, AsyncClient, Client, local_token
from tests.functional.local.support import LocalServer


@pytest.fixture
def user() -> str:
    return f"docs-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(server: LocalServer, user: str) -> Client:
    return Client(server.base, local_token(user, folder=server.data_dir))


def _stored(client: Client, user: str, content: str) -> str:
    return client.write_memory(f"vector.user.{user}.memory", content).ids[0]


def test_an_entry_is_read_patched_under_its_etag_and_revised(client: Client, user: str) -> None:
    doc_id = _stored(client, user, "The Apollo review is due on March 15.")
    read = client.get_document(doc_id)
    assert (read.content, read.etag is not None) == ("The Apollo review is due on March 15.", True)
    patched = client.patch_document(doc_id, {"content": "The Apollo review is due on April 2."}, if_match=read.etag)
    assert patched.content == "The Apollo review is due on April 2." and patched.etag != read.etag
    with pytest.raises(ApiError) as stale:
        client.patch_document(doc_id, {"content": "Lost update."}, if_match=read.etag)
    assert stale.value.status == 412
    assert client.get_document(doc_id).content == "The Apollo review is due on April 2."
    assert len(client.document_revisions(doc_id).revisions) >= 2


def test_an_entry_is_deleted_only_as_it_was_read(client: Client, user: str) -> None:
    doc_id = _stored(client, user, "Pick up the dry cleaning.")
    read = client.get_document(doc_id)
    client.patch_document(doc_id, {"tags": ["errand"]})
    with pytest.raises(ApiError) as stale:
        client.delete_document(doc_id, if_match=read.etag)
    assert stale.value.status == 412
    client.delete_document(doc_id, if_match=client.get_document(doc_id).etag)
    with pytest.raises(ApiError) as gone:
        client.get_document(doc_id)
    assert gone.value.status == 404


def test_explain_says_whether_a_search_recalls_the_entry(client: Client, user: str) -> None:
    doc_id = _stored(client, user, "The Apollo review is due on March 15.")
    explained = client.explain_memory("When is the Apollo review due?", doc_id)
    assert (explained.memory_id, explained.namespace) == (doc_id, f"vector.user.{user}.memory")
    assert explained.search is not None


def test_the_async_client_has_the_same_entry_methods(server: LocalServer, user: str) -> None:
    async def scenario() -> tuple[str, int, bool, int]:
        async with AsyncClient(server.base, local_token(user, folder=server.data_dir)) as client:
            written = await client.write_memory(f"vector.user.{user}.memory", "Lunch with Ana on Friday.")
            doc_id = written.ids[0]
            read = await client.get_document(doc_id)
            patched = await client.patch_document(doc_id, {"content": "Lunch with Ana on Monday."}, if_match=read.etag)
            revisions = await client.document_revisions(doc_id)
            explained = await client.explain_memory("lunch with Ana", doc_id)
            await client.delete_document(doc_id, if_match=patched.etag)
            try:
                await client.get_document(doc_id)
            except ApiError as error:
                return patched.content, len(revisions.revisions), explained.memory_id == doc_id, error.status
            return patched.content, len(revisions.revisions), explained.memory_id == doc_id, 200

    content, revisions, explained, after = asyncio.run(scenario())
    assert (content, explained, after) == ("Lunch with Ana on Monday.", True, 404)
    assert revisions >= 2


def test_a_namespaces_entries_are_listed_by_status_page_after_page(client: Client, user: str) -> None:
    namespace = f"vector.user.{user}.memory"
    ids = [_stored(client, user, f"Entry number {n} about gardening.") for n in range(3)]
    client.patch_document(ids[0], {"status": "superseded"})
    assert sorted(d.id for d in client.iter_documents(namespace, page_size=1)) == sorted(ids)
    assert [d.id for d in client.iter_documents(namespace, status="superseded")] == [ids[0]]
    assert sorted(d.id for d in client.iter_documents(namespace, status="active")) == sorted(ids[1:])
    first = client.list_documents(namespace, limit=1)
    assert len(first.documents) == 1 and first.cursor is not None


def test_the_async_client_lists_a_namespaces_entries(server: LocalServer, user: str) -> None:
    async def scenario() -> tuple[list[str], list[str], int]:
        async with AsyncClient(server.base, local_token(user, folder=server.data_dir)) as client:
            namespace = f"vector.user.{user}.memory"
            ids = [(await client.write_memory(namespace, f"Async entry {n}.")).ids[0] for n in range(2)]
            listed = [d.id async for d in client.iter_documents(namespace, page_size=1)]
            page = await client.list_documents(namespace, status="active")
            return sorted(ids), sorted(listed), len(page.documents)

    written, listed, active = asyncio.run(scenario())
    assert listed == written and active == 2
