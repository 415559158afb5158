"""The S3 Vectors stand-in obeys the service's documented limits and filter grammar (through a real botocore
client: what it refuses is a ``ValidationException`` the adapter would get from AWS)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from mneme_local.s3vectors_stand_in import S3VectorsStandIn

TARGET = {"vectorBucketName": "bucket", "indexName": "index"}


@pytest.fixture
def client() -> Any:
    stand_in = S3VectorsStandIn()
    stand_in.create_index("bucket", "index", 3)
    made = stand_in.client()
    made.put_vectors(
        **TARGET,
        vectors=[
            {"key": "a", "data": {"float32": [1, 0, 0]}, "metadata": {"genre": ["drama", "comedy"], "year": 2020}},
            {"key": "b", "data": {"float32": [0, 1, 0]}, "metadata": {"genre": "drama", "year": 2024, "content": "x"}},
            {"key": "c", "data": {"float32": [0, 0, 1]}, "metadata": {"year": True}},
        ],
    )
    return made


def _query(client: Any, flt: Any = None, top_k: int = 10) -> list[str]:
    extra = {"filter": flt} if flt is not None else {}
    answer = client.query_vectors(**TARGET, topK=top_k, queryVector={"float32": [1, 0.5, 0.1]}, **extra)
    return [v["key"] for v in answer["vectors"]]


def _refused(call: Any) -> str:
    with pytest.raises(ClientError) as caught:
        call()
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    return str(caught.value.response["Error"]["Message"])


@pytest.mark.parametrize(
    ("flt", "keys"),
    [
        ({"genre": "comedy"}, ["a"]),  # $eq against a list: any element
        ({"genre": {"$ne": "drama"}}, ["c"]),  # a missing key is "not equal"
        ({"year": {"$gte": 2021}}, ["b"]),  # a boolean is not a number
        ({"genre": {"$in": ["comedy", "horror"]}}, ["a"]),
        ({"genre": {"$nin": ["drama"]}}, ["c"]),
        ({"genre": {"$exists": False}}, ["c"]),
        ({"$and": [{"genre": "drama"}, {"year": {"$lt": 2021}}]}, ["a"]),
        ({"$or": [{"year": 2024}, {"year": True}]}, ["b", "c"]),
    ],
)
def test_the_filter_grammar(client: Any, flt: Any, keys: list[str]) -> None:
    assert sorted(_query(client, flt)) == keys


@pytest.mark.parametrize(
    "flt",
    [
        {"genre": "drama", "year": 2020},  # two keys in one object: $and says it
        {"year": {"$gt": "2020"}},
        {"genre": {"$in": []}},
        {"$and": []},
        {"genre": {"$regex": "d"}},
        {"content": "x"},  # non-filterable
    ],
)
def test_filters_outside_the_grammar_are_refused(client: Any, flt: Any) -> None:
    _refused(lambda: _query(client, flt))


def test_top_k_is_one_to_a_hundred(client: Any) -> None:
    assert "topK" in _refused(lambda: _query(client, top_k=101))
    assert len(_query(client, top_k=100)) == 3


def test_the_limits_of_a_put(client: Any) -> None:
    def put(*vectors: dict[str, Any]) -> Any:
        return lambda: client.put_vectors(**TARGET, vectors=list(vectors))

    one = {"key": "k", "data": {"float32": [1, 0, 0]}}
    assert "dimension" in _refused(put({**one, "data": {"float32": [1, 0]}}))
    assert "500" in _refused(put(*[{**one, "key": f"k{i}"} for i in range(501)]))
    assert "2048" in _refused(put({**one, "metadata": {"tag": "x" * 2100}}))
    assert "40960" in _refused(put({**one, "metadata": {"content": "x" * 41_000}}))
    client.put_vectors(**TARGET, vectors=[{**one, "metadata": {"content": "x" * 39_000}}])  # non-filterable: fits


def test_a_put_with_an_existing_key_overwrites(client: Any) -> None:
    client.put_vectors(**TARGET, vectors=[{"key": "a", "data": {"float32": [0, 1, 0]}, "metadata": {"year": 1}}])
    [got] = client.get_vectors(**TARGET, keys=["a"], returnMetadata=True, returnData=True)["vectors"]
    assert got["metadata"] == {"year": 1} and got["data"]["float32"] == [0.0, 1.0, 0.0]


def test_get_takes_a_hundred_keys_and_list_pages_by_segment(client: Any) -> None:
    assert "100" in _refused(lambda: client.get_vectors(**TARGET, keys=[f"k{i}" for i in range(101)]))
    segments = [client.list_vectors(**TARGET, segmentCount=2, segmentIndex=i)["vectors"] for i in range(2)]
    assert sorted(v["key"] for part in segments for v in part) == ["a", "b", "c"]
    _refused(lambda: client.list_vectors(**TARGET, segmentCount=2))
    first = client.list_vectors(**TARGET, maxResults=2)
    rest = client.list_vectors(**TARGET, maxResults=2, nextToken=first["nextToken"])
    assert sorted(v["key"] for v in first["vectors"] + rest["vectors"]) == ["a", "b", "c"] and "nextToken" not in rest
