"""The WWW-Authenticate challenge (mneme.api.challenge): RFC 6750's form, a reason that cannot break out of
its quoted string."""

from __future__ import annotations

from mneme.api.challenge import bearer_challenge


def test_no_token_is_the_bare_scheme_with_the_realm() -> None:
    assert bearer_challenge(None) == 'Bearer realm="mneme"'


def test_a_bad_token_names_invalid_token_and_the_reason() -> None:
    assert bearer_challenge("the token has expired") == (
        'Bearer realm="mneme", error="invalid_token", error_description="the token has expired"'
    )


def test_quotes_backslashes_and_line_breaks_are_left_out_of_the_reason() -> None:
    challenge = bearer_challenge('bad "x"\\\r\nSet-Cookie: a=b')
    assert challenge.endswith('error_description="bad xSet-Cookie: a=b"')
