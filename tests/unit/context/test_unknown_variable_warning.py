"""A task context naming something that is no template variable (a typo such as ``${user_nmae}``) is warned about
when it is saved, read or previewed: the name always becomes the empty string (SPEC §3), which before went unsaid —
the model silently saw "You help  prepare reviews."."""

from __future__ import annotations

from mneme.context import task_context_warnings


def test_an_unknown_variable_is_named_with_the_variables_there_are() -> None:
    warnings = task_context_warnings("You help ${user_nmae} prepare reviews for ${user_name}.")
    assert warnings == [
        "The task context uses ${user_nmae}, which is not a template variable: it becomes the empty string "
        "(the variables are user_id, user_name, user_email, chat_id, project_id, current_date, current_time)"
    ]


def test_known_variables_only_warn_about_caching() -> None:
    assert task_context_warnings("Help ${user_name} in ${chat_id} of ${project_id}, ${user_email}, ${user_id}.") == []
    assert len(task_context_warnings("Today: ${current_date}; later ${agent_id}.")) == 2
