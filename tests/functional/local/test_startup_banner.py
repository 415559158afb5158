"""``make run`` says on start which model answers each provider's agents, the embedder and the data folder."""

from __future__ import annotations

from pathlib import Path

from tests.functional.local.support import LocalServer


def test_the_server_prints_its_providers_embedder_and_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = LocalServer(data, env={"MNEME_OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}).start()
    try:
        lines = server.output().splitlines()
    finally:
        server.stop()
    assert f"  data folder: {data.resolve()}" in lines
    assert "    openai-compatible agents: http://127.0.0.1:9/v1" in lines
    assert any(line.startswith("    bedrock agents: the offline model") for line in lines)
    assert any(line.startswith("  embedder: local (") for line in lines)
    # and nothing else first: no library's log of which CPU build it loaded (faiss printed six lines)
    assert lines[0].startswith("mneme local server listening on"), lines[:8]
