"""One namespace's vectors in memory: int8 codes scanned by faiss, then an exact re-rank that proves its top-k.

* Each vector is stored as ``code = round(x * scale)`` (int8, one scale per dimension fitted on the rows the
  index was built from); faiss' ``QT_8bit_direct_signed`` index scans the codes with integer dot products
  against the query folded into the same units (``q / scale``) and rounded to int8 as well.
* The approximate score differs from the exact one by at most ``|q|·E + |r|·C`` (``E`` the largest
  quantization error of a row, ``C`` the largest code norm, ``r`` the query's rounding): the top ``R``
  approximate candidates are re-scored exactly from their float32 vectors (read from SQLite, the source of
  truth) and the result is returned only when no row outside them can beat the k-th exact score; otherwise
  ``R`` grows. Recall against exact search is therefore 1.0 by construction, not by luck.
* Rows whose components fall outside the fitted range (a clipped code) are re-scored exactly on every search.
* The filter stays inside the search: dead (deleted, superseded, replaced) and expired rows never reach
  the re-rank. When there are more than ``FEW_UNUSABLE`` of them, a faiss ``IDSelectorBitmap`` skips them
  while scanning; when there are fewer (a chat's few writes and deletes since the last compaction), the
  scan asks for that many more candidates and drops them from what it returns, which keeps every usable
  one a selector would have returned, without the selector's cost on every scanned row (~16 %).
* Changes are applied in place: a changed row's old position is marked dead and its current state appended;
  dead positions are compacted away when they pass a quarter of the index. Finding a changed row's position
  scans no column while the positions hold ascending rowids (an index built from the rows, then new rows
  appended): a rowid above the largest one is not there (a new row: every write's replay), any other is
  found by bisection; only after an out-of-order append (an updated row comes back at the end) does it
  compare every position, until the next compaction or load restores the order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from mneme_local.files import private_writer

Fetch = Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]  # rowids -> their float32 vectors, same order

NEVER = np.iinfo(np.int64).max
_SLACK = 1e-4  # float32 rounding of the exact scores and of the bound itself
FEW_UNUSABLE = 256  # up to this many dead or expired rows, the scan over-fetches instead of using a selector
_COLUMNS = {"rowids": np.int64, "expires": np.int64, "alive": np.bool_, "errors": np.float32, "norms": np.float32}
_SNAPSHOT_KEYS = ("index", "rowids", "expires", "alive", "errors", "norms", "always", "scale", "meta")


def _new_faiss(dimension: int) -> Any:
    index = faiss.IndexScalarQuantizer(
        dimension, faiss.ScalarQuantizer.QT_8bit_direct_signed, faiss.METRIC_INNER_PRODUCT
    )
    index.train(np.zeros((1, dimension), dtype=np.float32))  # direct codes: nothing to learn
    return index


def fit_scale(sample: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per-dimension scale mapping 1.2 times the sample's largest magnitude to 127 (the headroom keeps later
    rows inside the range; the magnitude is floored at a tenth of the overall one)."""
    peak = np.abs(sample).max(axis=0) if len(sample) else np.ones(sample.shape[1], dtype=np.float32)
    floor = max(float(peak.max()) * 0.1, 1e-12)
    return (127.0 / (1.2 * np.maximum(peak, floor))).astype(np.float32)


class NamespaceIndex:
    def __init__(self, dimension: int, scale: np.ndarray[Any, Any], seq: int = 0) -> None:
        self.dimension = dimension
        self.scale = scale
        self.seq = seq  # the change-log position this index reflects
        self.snapshot_seq = -1  # the position of the snapshot it was loaded from or saved to
        self._faiss = _new_faiss(dimension)
        # per position, in buffers with spare room (an append copies nothing until they are full):
        # rowid, expiry, alive, |x - code/scale| and |code|
        self._size = 0
        self._columns: dict[str, np.ndarray[Any, Any]] = {
            name: np.empty(0, dtype=kind) for name, kind in _COLUMNS.items()
        }
        self.always: set[int] = set()  # positions re-scored exactly on every search (clipped codes)
        self.error_max = 0.0  # the largest |x - code/scale| of a quantized row
        self.error_cap = 0.0  # rows with a larger error are re-scored exactly on every search instead
        self.code_norm_max = 0.0  # the largest |code|
        self.rebuilt_positions = 0  # work counter: positions written by appends and compactions
        self.kill_scans = 0  # work counter: kills that compared every position's rowid
        self._ascending = True  # the positions' rowids strictly ascend (a kill bisects)
        self._dead = 0  # positions marked dead

    @property
    def size(self) -> int:
        return self._size

    @property
    def rowids(self) -> np.ndarray[Any, Any]:
        return self._columns["rowids"][: self._size]

    @property
    def expires(self) -> np.ndarray[Any, Any]:
        return self._columns["expires"][: self._size]

    @property
    def alive(self) -> np.ndarray[Any, Any]:
        return self._columns["alive"][: self._size]

    @property
    def errors(self) -> np.ndarray[Any, Any]:
        return self._columns["errors"][: self._size]

    @property
    def norms(self) -> np.ndarray[Any, Any]:
        return self._columns["norms"][: self._size]

    def _set_columns(self, columns: dict[str, np.ndarray[Any, Any]]) -> None:
        self._size = len(columns["rowids"])
        self._columns = {name: np.ascontiguousarray(columns[name], dtype=kind) for name, kind in _COLUMNS.items()}
        self._ascending = bool(np.all(self.rowids[1:] > self.rowids[:-1]))
        self._dead = self._size - int(self.alive.sum())

    def _extend(self, columns: dict[str, np.ndarray[Any, Any]]) -> None:
        new = np.asarray(columns["rowids"], dtype=np.int64)
        self._ascending = (
            self._ascending
            and bool(np.all(new[1:] > new[:-1]))
            and (not self._size or not len(new) or int(new[0]) > int(self.rowids[-1]))
        )
        grown = self._size + len(columns["rowids"])
        if grown > len(self._columns["rowids"]):
            capacity = max(grown, 2 * len(self._columns["rowids"]), 1024)
            for name, kind in _COLUMNS.items():
                bigger: np.ndarray[Any, Any] = np.empty(capacity, dtype=kind)
                bigger[: self._size] = self._columns[name][: self._size]
                self._columns[name] = bigger
        for name in _COLUMNS:
            self._columns[name][self._size : grown] = columns[name]
        self._size = grown

    @property
    def live(self) -> int:
        return self._size - self._dead

    # ------------------------------------------------------------------------------------------ changes
    def append(
        self, rowids: np.ndarray[Any, Any], vectors: np.ndarray[Any, Any], expires: np.ndarray[Any, Any]
    ) -> None:
        if not len(rowids):
            return
        scaled = vectors * self.scale
        codes = np.clip(np.rint(scaled), -127, 127)
        errors = np.linalg.norm(vectors - codes / self.scale, axis=1)
        norms = np.linalg.norm(codes, axis=1)
        if not self.error_cap:  # fixed by the first rows: a quarter above their largest rounding error
            fitted = np.abs(scaled).max(axis=1) <= 127.5
            self.error_cap = 1.25 * float((errors[fitted] if fitted.any() else errors).max()) + 1e-9
        clipped = errors > self.error_cap  # codes clipped far outside the fitted range
        kept = ~clipped
        if kept.any():
            self.error_max = max(self.error_max, float(errors[kept].max()))
            self.code_norm_max = max(self.code_norm_max, float(norms[kept].max()))
        first = self.size
        self.always.update(int(p) for p in first + np.flatnonzero(clipped))
        self._faiss.add(codes.astype(np.float32))
        self._extend(
            {
                "rowids": rowids,
                "expires": expires,
                "alive": np.ones(len(rowids), dtype=bool),
                "errors": errors,
                "norms": norms,
            },
        )
        self.rebuilt_positions += len(rowids)

    def kill(self, rowids: Iterable[int]) -> int:
        """Mark the positions of these rows dead; returns how many were alive."""
        wanted = np.unique(np.fromiter(rowids, dtype=np.int64))
        if not wanted.size or not self.size:
            return 0
        if self._ascending:  # new rows (above the largest rowid) are not here; the others are found by bisection
            wanted = wanted[wanted <= self.rowids[-1]]
            places = np.searchsorted(self.rowids, wanted)
            hit = places[self.rowids[places] == wanted]
            hit = hit[self.alive[hit]]
            dead = len(hit)
        else:
            self.kill_scans += 1
            found = np.isin(self.rowids, wanted) & self.alive
            hit, dead = found, int(found.sum())
        self.alive[hit] = False
        self._dead += dead
        if self.size > 64 and self._dead * 4 > self.size:
            self._compact()
        return dead

    def _compact(self) -> None:
        keep = self.alive.copy()
        self._faiss.remove_ids(faiss.IDSelectorBatch(np.flatnonzero(~keep).astype(np.int64)))
        positions = np.cumsum(keep) - 1
        self.always = {int(positions[p]) for p in self.always if keep[p]}
        self._set_columns({name: self._columns[name][: self._size][keep] for name in _COLUMNS})
        self.rebuilt_positions += self._size

    # ------------------------------------------------------------------------------------------ search
    def search(self, query: np.ndarray[Any, Any], k: int, now: int, fetch: Fetch) -> list[tuple[int, float]]:
        """The exact top ``k`` (rowid, score) among the live, unexpired rows.

        Each round takes the best ``R`` approximations (``R`` = max(4k, 64), then 16 times more), scores
        exactly those whose own error bound can still reach the k-th exact score so far, and stops when the
        worst approximation taken, plus the largest possible error, stays below that k-th score: no row
        outside can enter the top-k.
        """
        usable = self.alive & (self.expires > now)
        total = int(usable.sum())
        if not total or k <= 0:
            return []
        folded = query / self.scale
        peak = float(np.abs(folded).max())
        unit = 127.0 / peak if peak > 0 else 1.0
        coded = np.clip(np.rint(folded * unit), -127, 127).astype(np.float32)[None]
        rounding = float(np.linalg.norm(coded[0] / unit - folded))
        length = float(np.linalg.norm(query))
        bound = length * self.error_max + rounding * self.code_norm_max + _SLACK
        params = selector = None
        unusable = over_fetch = self.size - total
        if unusable > FEW_UNUSABLE:  # skipped while scanning (the bitmap and selector stay referenced here
            bitmap = np.packbits(usable, bitorder="little")  # for as long as faiss reads them)
            selector = faiss.IDSelectorBitmap(self.size, faiss.swig_ptr(bitmap))
            params = faiss.SearchParameters()
            params.sel = selector
            over_fetch = 0  # else a few: fetched beside the usable ones and dropped before the re-rank
        positions = np.array(sorted(p for p in self.always if usable[p]), dtype=np.int64)
        scores = fetch(self.rowids[positions]) @ query if len(positions) else np.empty(0, dtype=np.float32)
        kth = -np.inf
        want = min(total, max(4 * k, 64))
        while True:
            distances, labels = self._faiss.search(coded, min(self.size, want + over_fetch), params=params)
            taken = labels[0] >= 0
            if over_fetch:
                taken &= usable[np.maximum(labels[0], 0)]
            found, approx = labels[0][taken], distances[0][taken] / unit
            upper = approx + length * self.errors[found] + rounding * self.norms[found] + _SLACK
            new = np.setdiff1d(found[upper >= kth], positions)
            if len(new):
                positions = np.concatenate([positions, new])
                scores = np.concatenate([scores, fetch(self.rowids[new]) @ query])
            order = np.argsort(-scores, kind="stable")[:k]
            if len(order) == k:
                kth = float(scores[order[-1]])
            if len(found) >= total or (len(order) == k and float(approx[-1]) + bound < kth):
                break
            want = min(total, want * 16)
        return [(int(self.rowids[positions[i]]), float(scores[i])) for i in order]

    # ------------------------------------------------------------------------------------------ snapshots
    def save(self, path: Path) -> None:
        meta = np.array(
            [self.dimension, self.seq, self.error_max, self.code_norm_max, self.error_cap], dtype=np.float64
        )
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with private_writer(temporary) as out:
            np.savez(
                out,
                index=faiss.serialize_index(self._faiss),
                rowids=self.rowids,
                expires=self.expires,
                alive=self.alive,
                errors=self.errors,
                norms=self.norms,
                always=np.array(sorted(self.always), dtype=np.int64),
                scale=self.scale,
                meta=meta,
            )
        temporary.replace(path)
        self.snapshot_seq = self.seq

    @classmethod
    def load(cls, path: Path) -> NamespaceIndex:
        with np.load(path, allow_pickle=False) as saved:
            if set(saved.files) != set(_SNAPSHOT_KEYS):
                raise ValueError(f"{path} is not a vector snapshot")
            meta = saved["meta"]
            index = cls(int(meta[0]), saved["scale"], seq=int(meta[1]))
            index.error_max, index.code_norm_max, index.error_cap = float(meta[2]), float(meta[3]), float(meta[4])
            index._faiss = faiss.deserialize_index(saved["index"])
            index._set_columns({name: saved[name] for name in _COLUMNS})
            index.always = {int(p) for p in saved["always"]}
        if index._faiss.ntotal != index.size or index._faiss.d != index.dimension:
            raise ValueError(f"{path} is inconsistent")
        index.snapshot_seq = index.seq
        return index
