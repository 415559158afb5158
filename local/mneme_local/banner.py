"""What ``make run`` prints when it starts (issue 33.2): where it listens, the data folder, which model answers
each provider's agents, the embedder, and where to go next — so nobody has to guess what answered a run."""

from __future__ import annotations

from pathlib import Path

from mneme.settings import Settings
from mneme_local.stack import LocalMneme, LocalOptions
from mneme_local.token import DEFAULT_DATA_DIR


def model_lines(options: LocalOptions, settings: Settings) -> list[str]:
    """One line per agent model provider: what answers its agents here."""
    bedrock = (
        f"Bedrock ({settings.region}, AWS credentials)"
        if options.model_provider == "bedrock"
        else "the offline model (MNEME_MODEL_PROVIDER=bedrock, with AWS credentials, calls Bedrock)"
    )
    base_url = settings.openai_base_url.rstrip("/")
    allowed = [url.rstrip("/") for url in settings.openai_endpoints if url]
    if base_url:
        openai = base_url + (f" (agents may also name {', '.join(allowed)})" if allowed else "")
    elif allowed:
        openai = f"only agents naming an endpoint of {', '.join(allowed)} (no MNEME_OPENAI_BASE_URL default)"
    else:
        openai = "not served: such agents are refused (set MNEME_OPENAI_BASE_URL)"
    return [
        f"    bedrock agents: {bedrock}",
        f"    openai-compatible agents: {openai}",
        "    offline agents: the offline model",
    ]


def token_command(data_dir: Path) -> str:
    """``make token`` as it must be typed for this server: its key is the data folder's, so another folder
    (``MNEME_DATA_DIR``) must be named, or the token is signed with another key and refused (401)."""
    folder = data_dir.resolve()
    prefix = "" if folder == Path(DEFAULT_DATA_DIR).resolve() else f"MNEME_DATA_DIR={folder} "
    return f"{prefix}make token USER=alice [ADMIN=1]"


def banner(*, host: str, port: int, data_dir: Path, options: LocalOptions, settings: Settings, embedder: str) -> str:
    base = f"http://{host}:{port}"
    return "\n".join(
        [
            f"mneme local server listening on {base}",
            f"  data folder: {data_dir.resolve()}",
            "  model providers:",
            *model_lines(options, settings),
            f"  embedder: {embedder}",
            f"  token: {token_command(data_dir)}   health: curl {base}/v1/health",
            f"  console: {base}/ (sign in with the token)   API docs: {base}/docs",
        ]
    )


def stack_banner(stack: LocalMneme, *, host: str, port: int) -> str:
    """:func:`banner` for a running stack: its data folder, options, settings and embedder."""
    model_id = stack.deps.embedder.model_id if stack.deps.embedder is not None else "none"
    embedder = f"{stack.options.embedding_provider} ({model_id})"
    return banner(
        host=host,
        port=port,
        data_dir=stack.options.data_dir,
        options=stack.options,
        settings=stack.deps.settings,
        embedder=embedder,
    )
