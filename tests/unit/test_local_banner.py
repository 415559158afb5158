"""What ``make run`` prints at start (issue 33.2): which model answers each provider's agents, and never an
openai-compatible fallback to the offline model."""

from __future__ import annotations

from pathlib import Path

from mneme.settings import Settings
from mneme_local.banner import banner, model_lines, token_command
from mneme_local.stack import LocalOptions

OFFLINE = LocalOptions(data_dir=Path("/tmp/h33runs/data"))


def _settings(**environ: str) -> Settings:
    return Settings.model_validate({"MNEME_MODE": "local", **environ})


def test_without_a_base_url_openai_compatible_agents_are_said_to_be_refused() -> None:
    (_bedrock, openai, _offline) = model_lines(OFFLINE, _settings())
    assert openai == "    openai-compatible agents: not served: such agents are refused (set MNEME_OPENAI_BASE_URL)"


def test_with_a_base_url_it_is_named() -> None:
    (_bedrock, openai, _offline) = model_lines(OFFLINE, _settings(MNEME_OPENAI_BASE_URL="http://127.0.0.1:8080/v1/"))
    assert openai == "    openai-compatible agents: http://127.0.0.1:8080/v1"


def test_bedrock_agents_are_said_to_be_answered_offline_unless_bedrock_is_chosen() -> None:
    assert "the offline model" in model_lines(OFFLINE, _settings())[0]
    chosen = LocalOptions(data_dir=OFFLINE.data_dir, model_provider="bedrock")
    assert model_lines(chosen, _settings(AWS_REGION="eu-west-1"))[0] == (
        "    bedrock agents: Bedrock (eu-west-1, AWS credentials)"
    )


def test_the_banner_names_the_data_folder_and_the_embedder() -> None:
    text = banner(
        host="127.0.0.1",
        port=8933,
        data_dir=OFFLINE.data_dir,
        options=OFFLINE,
        settings=_settings(),
        embedder="local (all-MiniLM)",
    )
    assert "  data folder: /tmp/h33runs/data" in text.splitlines()
    assert "  embedder: local (all-MiniLM)" in text.splitlines()


def test_the_token_command_names_a_data_folder_other_than_the_default(monkeypatch, tmp_path: Path) -> None:
    # a token made without the server's MNEME_DATA_DIR is signed with another folder's key: a 401
    monkeypatch.chdir(tmp_path)
    assert token_command(Path(".local-data")) == "make token USER=alice [ADMIN=1]"
    assert token_command(tmp_path / "data") == f"MNEME_DATA_DIR={tmp_path / 'data'} make token USER=alice [ADMIN=1]"
    text = banner(
        host="127.0.0.1", port=8933, data_dir=tmp_path / "data", options=OFFLINE, settings=_settings(), embedder="x"
    )
    assert f"  token: MNEME_DATA_DIR={tmp_path / 'data'} make token USER=alice [ADMIN=1]" in text
