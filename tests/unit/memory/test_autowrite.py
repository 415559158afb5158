"""Auto-write after a run (SPEC §5.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from mneme.memory.autowrite import AutoWritePlan, auto_write_job_id, plan_auto_write
from mneme.memory.policy import MemoryScope
from mneme.models.policy import ResolvedPolicy
from mneme.models.run import RunStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

SCOPE = MemoryScope(user_id="alice", chat_id="c1", project_id="p1", agent_id="helper", task_id="t1", session_id="s1")
WRITING = ResolvedPolicy(allow_write=True)
LONG_INPUT = "Please analyse the Q1 marketing strategy and list the three most important open questions."
SHORT_INPUT = "What's new?"


def plan(
    policy: ResolvedPolicy = WRITING,
    scope: MemoryScope = SCOPE,
    *,
    status: RunStatus = RunStatus.SUCCEEDED,
    user_input: str = LONG_INPUT,
    output: str | None = "answer",
    hits: Sequence[str] = ("h1", "h2"),
    run_id: str = "r1",
) -> AutoWritePlan:
    return plan_auto_write(
        policy,
        scope,
        run_id=run_id,
        status=status,
        user_input=user_input,
        output=output,
        injected_hit_ids=hits,
    )


def test_successful_run_stores_long_input_and_output() -> None:
    # Given a successful run with an input of at least 80 characters / When planned
    jobs = plan().jobs
    # Then run_input and run_output are written to the default write namespace
    assert [j.metadata["source"] for j in jobs] == ["run_input", "run_output"]
    assert {j.namespace for j in jobs} == {"vector.agent.alice.memory"}
    assert {j.owner_user_id for j in jobs} == {"alice"}
    assert jobs[0].content == LONG_INPUT and jobs[1].content == "answer"


@pytest.mark.parametrize(("length", "stored"), [(79, False), (80, True), (81, True)])
def test_input_is_stored_only_from_80_characters(length: int, stored: bool) -> None:
    # Given an input of a given length / When planned
    jobs = plan(user_input="x" * length).jobs
    # Then run_input only when ≥ 80 characters
    assert ("run_input" in [j.metadata["source"] for j in jobs]) is stored


def test_short_input_still_stores_the_output() -> None:
    # Given a short input / When planned / Then only run_output
    assert [j.metadata["source"] for j in plan(user_input=SHORT_INPUT).jobs] == ["run_output"]


def test_output_is_derived_from_the_injected_hits() -> None:
    # Given hits injected into the run (one repeated) / When planned
    jobs = plan(hits=("h1", "h2", "h1")).jobs
    # Then run_output derives from them once each; run_input derives from nothing
    assert jobs[1].derived_from == ["h1", "h2"]
    assert jobs[0].derived_from == []


def test_metadata_names_source_agent_task_chat_user_session_and_run() -> None:
    # Given a run scope / When planned / Then both jobs carry the full metadata
    for job in plan().jobs:
        assert job.metadata == {
            "source": job.metadata["source"],
            "agent_id": "helper",
            "task_id": "t1",
            "chat_id": "c1",
            "user_id": "alice",
            "session_id": "s1",
            "run_id": "r1",
        }


def test_job_ids_are_deterministic_per_run_and_source() -> None:
    # Given the same run planned twice and another run / When planned
    first, again, other = plan().jobs, plan().jobs, plan(run_id="r2").jobs
    # Then a retry yields the same ids, input and output differ, another run differs
    assert [j.job_id for j in first] == [j.job_id for j in again]
    assert first[0].job_id != first[1].job_id
    assert {j.job_id for j in first}.isdisjoint({j.job_id for j in other})
    assert first[1].job_id == auto_write_job_id("r1", "run_output")


@pytest.mark.parametrize("status", [RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.RUNNING])
def test_a_run_that_did_not_succeed_writes_nothing(status: RunStatus) -> None:
    # Given a run that did not succeed / When planned / Then no jobs and no warnings
    result = plan(status=status)
    assert (result.jobs, result.warnings) == ((), ())


def test_allow_write_false_writes_nothing() -> None:
    # Given the default policy (allow_write false) / When planned / Then nothing
    assert plan(ResolvedPolicy()).jobs == ()


@pytest.mark.parametrize("output", ["", "   ", None])
def test_empty_output_writes_no_run_output(output: str | None) -> None:
    # Given an empty final answer / When planned / Then only run_input
    assert [j.metadata["source"] for j in plan(output=output).jobs] == ["run_input"]


def test_the_configured_write_namespace_is_resolved_with_run_values() -> None:
    # Given a write namespace using ${user_id} and ${project_id} / When planned / Then resolved
    policy = ResolvedPolicy(allow_write=True, write_namespace="vector.user.${user_id}.p-${project_id}")
    assert {j.namespace for j in plan(policy).jobs} == {"vector.user.alice.p-p1"}


@pytest.mark.parametrize(
    ("write_namespace", "scope"),
    [
        ("vector.user.${user_id}.c-${chat_id}", MemoryScope(user_id="alice", chat_id="Chat_1")),
        ("vector.agent.${user_id}.memory", MemoryScope(user_id="Alice")),
        ("vector.user.bob.memory", SCOPE),
        ("vector.global.howto", SCOPE),
    ],
)
def test_unusable_write_namespace_writes_nothing_with_a_warning(write_namespace: str, scope: MemoryScope) -> None:
    # Given a write namespace that cannot be resolved strictly, is another user's, or global for a non-admin
    policy = ResolvedPolicy(allow_write=True, write_namespace=write_namespace)
    # When planned / Then no jobs and one warning
    result = plan(policy, scope)
    assert result.jobs == () and len(result.warnings) == 1


def test_global_write_namespace_works_for_an_admin() -> None:
    # Given an admin and a global write namespace / When planned / Then written, with no owner user
    policy = ResolvedPolicy(allow_write=True, write_namespace="vector.global.howto")
    jobs = plan(policy, MemoryScope(user_id="root", is_admin=True)).jobs
    assert {(j.namespace, j.owner_user_id) for j in jobs} == {("vector.global.howto", "")}


def test_an_openai_compatible_agents_extract_job_carries_its_endpoint_and_key_secret_never_a_key() -> None:
    # issue 31.2: the writer needs the endpoint and the key secret's ARN to call the agent's model
    from mneme.models.agent import ModelSpec

    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:mneme/openai-key-AbCdEf"
    spec = ModelSpec(
        provider="openai-compatible", model_id="gpt-4o", endpoint="https://llm.example/v1", api_key_secret_arn=arn
    )
    policy = ResolvedPolicy(allow_write=True, extraction=["raw", "facts"])
    jobs = plan_auto_write(
        policy, SCOPE, run_id="r1", status=RunStatus.SUCCEEDED, user_input=LONG_INPUT, output="ok", model_spec=spec
    ).jobs
    [extract] = [job for job in jobs if job.kind == "extract"]
    assert extract.model == {
        "provider": "openai-compatible",
        "model_id": "gpt-4o",
        "endpoint": "https://llm.example/v1",
        "api_key_secret_arn": arn,
    }


def test_a_bedrock_agents_extract_job_carries_only_provider_and_model() -> None:
    from mneme.models.agent import ModelSpec

    policy = ResolvedPolicy(allow_write=True, extraction=["facts"])
    spec = ModelSpec(provider="bedrock", model_id="amazon.nova-lite-v1:0")
    jobs = plan_auto_write(
        policy, SCOPE, run_id="r1", status=RunStatus.SUCCEEDED, user_input=LONG_INPUT, output="ok", model_spec=spec
    ).jobs
    assert [job.model for job in jobs if job.kind == "extract"] == [{"provider": "bedrock", "model_id": spec.model_id}]
