"""Property-based tests of the namespace rules (SPEC §5.2): security filter, strict resolution, matching."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme.memory.access import covers
from mneme.memory.namespaces import can_write, is_readable, own_namespaces, split_readable
from mneme.namespace_grammar import NamespaceError, matches, parse, resolve

VALID_SEGMENT = re.compile(r"[a-z0-9][a-z0-9-]*")  # checked with fullmatch, independent of the module
PROFILE = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

valid_segments = st.builds(
    lambda head, tail: head + tail,
    st.sampled_from("abcxyz019"),
    st.text(alphabet="abcxyz019-", max_size=8),
)
weird_segments = st.sampled_from(
    ["", "*", "**", "Alice", "ALICE", "al.ice", "al*", "ä", "İ", "ﬀ", "a\n", "\nb", " a", "-a", "a_b",
     "${user_id}", "{user_id}", "${user_id", "$", "vector", "global", "x" * 600]
) | st.text(max_size=12)  # fmt: skip
segments = valid_segments | weird_segments
scopes = st.sampled_from(["agent", "user"]) | st.sampled_from(["global", "Agent", "GLOBAL", "team", "", "*"])


def case_variants(user_id: str) -> st.SearchStrategy[str]:
    """Ids that look like the caller's but are not it."""
    variants = {user_id.upper(), user_id.title(), user_id + "x", user_id[:-1], user_id + ".", "." + user_id,
                user_id + "\n", user_id.replace("-", "_"), user_id + "*", f"${{{user_id}}}"}  # fmt: skip
    variants.discard(user_id)
    return st.sampled_from(sorted(variants)) if variants else st.just("x")


@st.composite
def user_and_namespace(draw: st.DrawFn) -> tuple[str, str]:
    """A caller id and a namespace text: often the caller's own, else a look-alike, another id or noise."""
    user_id = draw(st.sampled_from(["valid", "valid", "weird"]).flatmap(
        lambda kind: valid_segments if kind == "valid" else weird_segments))  # fmt: skip
    owner = draw(st.sampled_from(["same", "same", "variant", "other"]).flatmap(
        lambda kind: st.just(user_id) if kind == "same" else case_variants(user_id) if kind == "variant"
        else segments))  # fmt: skip
    parts = draw(st.lists(valid_segments, min_size=1, max_size=3) | st.lists(segments, max_size=3))
    tail = draw(st.sampled_from(["", ".*"]) | st.sampled_from(["*", ".", "..*", ".**"]))
    kind = draw(st.sampled_from(["owned", "owned", "owned", "global", "text"]))
    if kind == "owned":
        namespace = ".".join(["vector", draw(scopes), owner, *parts]) + tail
    elif kind == "global":
        namespace = ".".join(["vector", "global", *parts]) + tail
    else:
        namespace = draw(st.text(max_size=60))
    return user_id, namespace


@settings(PROFILE, max_examples=1000)
@given(user_and_namespace())
def test_security_filter_never_admits_another_users_id_segment(case: tuple[str, str]) -> None:
    # Given any caller id and any namespace text
    user_id, namespace = case
    # When the security filter admits the namespace
    if not is_readable(namespace, user_id):
        return
    # Then it is a valid namespace, and either global or with the caller's exact id as its id segment
    segs = namespace.split(".")
    assert segs[0] == "vector"
    assert all(VALID_SEGMENT.fullmatch(s) for s in (segs[:-1] if segs[-1] == "*" else segs))
    assert segs[1] == "global" or (segs[1] in ("agent", "user") and segs[2] == user_id)


@PROFILE
@given(user_and_namespace())
def test_writes_are_never_admitted_into_another_users_scope(case: tuple[str, str]) -> None:
    # Given any caller id and namespace / When a non-admin may write it
    user_id, namespace = case
    if can_write(namespace, user_id, is_admin=False):
        # Then it is one concrete namespace of the caller's own scopes
        segs = namespace.split(".")
        assert segs[1] in ("agent", "user") and segs[2] == user_id and segs[-1] != "*"


@settings(PROFILE, max_examples=200)
@given(st.lists(user_and_namespace(), min_size=1, max_size=4))
def test_split_readable_partitions_by_the_filter(cases: list[tuple[str, str]]) -> None:
    # Given one caller and several namespaces / When split
    user_id = cases[0][0]
    namespaces = [ns for _, ns in cases]
    allowed, denied = split_readable(namespaces, user_id)
    # Then every namespace lands on exactly one side, by the filter
    assert set(allowed) | set(denied) == set(namespaces) and not set(allowed) & set(denied)
    assert all(is_readable(ns, user_id) for ns in allowed)


@PROFILE
@given(valid_segments | weird_segments)
def test_own_namespaces_only_name_the_callers_own_id(user_id: str) -> None:
    # Given any user id / When own namespaces are listed / Then each is global or the caller's exact id
    for pattern in own_namespaces(user_id):
        segs = pattern.split(".")
        assert segs[1] == "global" or (segs[2] == user_id and is_readable(pattern, user_id))


template_patterns = st.sampled_from(
    [
        "vector.agent.${user_id}.memory",
        "vector.user.{user_id}.memory",
        "vector.user.${user_id}.c-${chat_id}",
        "vector.global.${project_id}.*",
        "vector.agent.${user_id}.${agent_id}.${task_id}",
        "vector.user.${user_id}.s${session_id}x",
        "vector.${chat_id}.x.memory",
        "vector.user.${user_id}",
    ]
)
template_values = st.one_of(valid_segments, weird_segments, st.none())


@PROFILE
@given(
    template_patterns,
    st.fixed_dictionaries(
        {name: template_values for name in ("user_id", "chat_id", "project_id", "agent_id", "task_id", "session_id")}
    ),
)
def test_strict_resolution_never_produces_an_invalid_segment(pattern: str, values: dict[str, str | None]) -> None:
    # Given a template pattern and arbitrary values / When resolved strictly
    try:
        resolved = resolve(pattern, values)
    except NamespaceError:
        return  # Then either it is unusable
    # Or the result parses and every segment is valid
    parsed = parse(resolved)
    segs = resolved.split(".")
    assert all(VALID_SEGMENT.fullmatch(s) for s in (segs[:-1] if parsed.wildcard else segs))
    if pattern.startswith(("vector.agent.${user_id}", "vector.user.${user_id}", "vector.user.{user_id}")):
        assert parsed.owner == values["user_id"]


valid_namespace_segments = st.lists(valid_segments, min_size=1, max_size=5)


@PROFILE
@given(
    st.sampled_from(["global", "agent", "user"]),
    st.lists(valid_segments, min_size=0, max_size=3),
    st.lists(valid_segments, min_size=0, max_size=5),
    valid_segments,
)
def test_wildcard_matching_is_a_segment_prefix_relation(
    scope: str, prefix: list[str], rest: list[str], owner: str
) -> None:
    # Given a '.*' pattern and a namespace, both made of valid segments
    head = ["vector", scope] + ([] if scope == "global" else [owner])
    pattern = ".".join([*head, *prefix, "*"])
    namespace_segs = [*head, *rest]
    namespace = ".".join(namespace_segs)
    # When matched
    result = matches(pattern, namespace)
    # Then it matches exactly when the pattern's segments are a proper prefix of the namespace's
    pattern_segs = [*head, *prefix]
    is_prefix = namespace_segs[: len(pattern_segs)] == pattern_segs and len(namespace_segs) > len(pattern_segs)
    assert result is is_prefix
    # And as strings, it is a prefix match on the literal part
    assert result is (namespace.startswith(pattern[:-1]) and len(namespace) > len(pattern) - 1)
    # And a grant covers everything it matches
    assert not result or covers(pattern, namespace)


@PROFILE
@given(valid_namespace_segments, valid_namespace_segments)
def test_a_requested_pattern_is_covered_only_within_the_grant(grant_tail: list[str], req_tail: list[str]) -> None:
    # Given a granted and a requested global pattern
    grant = ".".join(["vector", "global", *grant_tail, "*"])
    requested = ".".join(["vector", "global", *req_tail, "*"])
    # When coverage is checked / Then it holds exactly when the requested prefix extends the granted one
    assert covers(grant, requested) is (req_tail[: len(grant_tail)] == grant_tail)
