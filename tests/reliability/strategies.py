"""Adversarial namespace strings and ids for the isolation suite."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import strategies as st

#: hand-picked attacks: other users, case and unicode look-alikes, wildcards, templates, paths, overlong
FIXED_NAMESPACES = (
    "vector.agent.bob.memory",
    "vector.user.bob.memory",
    "vector.user.bob.notes",
    "vector.agent.bob.*",
    "vector.user.bob.*",
    "vector.agent.bob.x.deep",
    "vector.agent.bob.x.*",
    "vector.agent.BOB.memory",
    "VECTOR.AGENT.BOB.MEMORY",
    "vector.agent.Bob.memory",
    "vector.agent.ｂｏｂ.memory",  # fullwidth
    "vector.agent.bоb.memory",  # Cyrillic o
    "vector.agent.bob\u200b.memory",  # zero-width space
    "vector.agent.bob .memory",
    "vector.agent.bob.memory\n",
    "vector.agent.bob%2ememory",
    "vector.*",
    "*",
    "vector.agent.*",
    "vector.agent.*.memory",
    "vector.*.bob.memory",
    "vector.agent.${user_id}.memory",
    "vector.user.{user_id}.*",
    "vector.agent.${user_id}-bob.memory",
    "vector.agent.${user_id}.${chat_id}",
    "vector.agent.${chat_id}.memory",
    "vector.agent.${project_id}.memory",
    "vector.agent.${session_id}.*",
    "vector.agent.${bob}.memory",
    "vector.agent.$${user_id}.memory",
    "vector.agent.${user_id}",
    "vector.agent.alice.memory",
    "vector.agent.alice.*",
    "vector.user.alice.*",
    "vector.agent.alice.memory.*",
    "vector.agent.alice..memory",
    "vector.agent.alice.memory/../../bob.memory",
    "../vector.agent.bob.memory",
    "vector/agent/bob/memory",
    "vector.global.*",
    "vector.global.howto",
    "vector.global",
    "vector.admin.bob.memory",
    "vector.agent." + "b" * 600 + ".memory",
    "vector.agent.bob." + "m" * 520,
    "",
    " ",
)

SEGMENTS = st.sampled_from(
    ["bob", "alice", "BOB", "Bob", "b0b", "bob-", "-bob", "bob*", "*", "${user_id}", "{user_id}", "${chat_id}",
     "${project_id}", "${agent_id}", "${nope}", "memory", "notes", "x", "ｂｏｂ", "", "..", "%2e"]
)  # fmt: skip


@st.composite
def built_namespace(draw: st.DrawFn) -> str:
    scope = draw(st.sampled_from(["agent", "user", "global", "AGENT", "admin", "*"]))
    tail = draw(st.lists(st.one_of(SEGMENTS, st.text(min_size=0, max_size=8)), min_size=0, max_size=4))
    return ".".join(["vector", scope, *tail])


NAMESPACE = st.one_of(st.sampled_from(FIXED_NAMESPACES), built_namespace())
NAMESPACE_LISTS = st.lists(NAMESPACE, min_size=1, max_size=5)
#: values alice controls that end up as template values (chat_id, project_id, session_id)
TEMPLATE_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["bob", "BOB", "bob.memory", "alice", "bob*", "${user_id}", "../bob", "x" * 300]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12),
)


def id_variants(ids: list[str]) -> st.SearchStrategy[str]:
    """Other users' ids and their case, unicode, wildcard, path-like and overlong variants."""
    base = st.sampled_from(ids)
    return st.one_of(
        base,
        base.map(str.upper),
        base.map(lambda i: i + "*"),
        base.map(lambda i: i[:-1]),
        base.map(lambda i: i + "\u200b"),
        base.map(lambda i: f"../{i}"),
        base.map(lambda i: f"{i}/../{i}"),
        base.map(lambda i: quote(i, safe="") + "%2F.."),
        st.sampled_from(["*", "%", "..", "%2e%2e", "${user_id}", "bob", "ａ", "x" * 5000, "RUN#bob0001x", "USER#bob"]),
        st.text(min_size=1, max_size=40),
    )
