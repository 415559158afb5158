"""The SQLite backend of ``ItemTable``: the embedded local twin of the DynamoDB tables (``make run``).

One file holds any number of tables (one SQL table each); state survives restarts. The file runs in
WAL mode and one connection per table object is shared by every thread under a lock, so a
multi-threaded local server is safe; writes run in ``BEGIN IMMEDIATE`` transactions, so conditions are
checked and writes applied atomically (also across processes, thanks to SQLite's own locking).

Each item is stored whole as JSON; the key attributes and each index's key attributes are copied into
columns so queries, index queries and paging run in SQL with DynamoDB's order (UTF-8 byte order =
SQLite's BINARY collation). Filters and page limits use the shared semantics of
:mod:`mneme.adapters.dynamo.items`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from mneme.adapters.dynamo.item_size import check_item_size
from mneme.adapters.dynamo.items import (
    AUDIT_SCHEMA,
    MAIN_SCHEMA,
    PK,
    SK,
    Condition,
    Delete,
    Item,
    Key,
    Page,
    Put,
    TableSchema,
    Update,
    WriteOp,
    check_transaction,
    condition_holds,
    incremented,
    op_key,
    paginate,
    prefix_upper,
)
from mneme.errors import Conflict, StoreUnavailable
from mneme_local.files import private_file

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


class SqliteItemTable:
    def __init__(self, path: str | Path, table_name: str, schema: TableSchema) -> None:
        if not _NAME.match(table_name):
            raise ValueError(f"invalid table name {table_name!r}")
        self._schema = schema
        self._table = table_name
        self._indexes = {name: i for i, name in enumerate(schema.indexes)}
        self._lock = threading.RLock()
        if str(path) != ":memory:":
            private_file(path)  # 0600 (its -wal / -shm files inherit the mode), in a 0700 folder
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._create()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot open the local store {path}: {exc}") from exc

    def _create(self) -> None:
        ix_cols = "".join(f", ix{i}_pk TEXT, ix{i}_sk TEXT" for i in self._indexes.values())
        self._db.execute(
            f'CREATE TABLE IF NOT EXISTS "{self._table}" (pk TEXT NOT NULL, sk TEXT NOT NULL, '
            f"body TEXT NOT NULL{ix_cols}, PRIMARY KEY (pk, sk)) WITHOUT ROWID"
        )
        self._add_index_columns()
        for i in self._indexes.values():
            # partial, as a DynamoDB index is sparse: an item without the index's keys (a revision, an event)
            # costs no index entry, so writing it updates one B-tree instead of three
            name, where = f"{self._table}_ix{i}", f"ix{i}_pk IS NOT NULL"
            found = self._db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (name,))
            row = found.fetchone()
            if row is not None and where not in row[0]:  # a file made when the indexes were whole
                self._db.execute(f'DROP INDEX "{name}"')
            columns = f"ix{i}_pk, ix{i}_sk, pk, sk"
            self._db.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{self._table}" ({columns}) WHERE {where}')

    def _add_index_columns(self) -> None:
        """A file made before an index joined the schema gets its columns, filled from the stored items (as
        DynamoDB backfills an index added to a table)."""
        present = {row[1] for row in self._db.execute(f'PRAGMA table_info("{self._table}")')}
        for name, i in self._indexes.items():
            if f"ix{i}_pk" in present:
                continue
            ipk, isk = (f"'$.{attribute}'" for attribute in self._schema.indexes[name])
            self._db.execute(f'ALTER TABLE "{self._table}" ADD COLUMN ix{i}_pk TEXT')
            self._db.execute(f'ALTER TABLE "{self._table}" ADD COLUMN ix{i}_sk TEXT')
            self._db.execute(
                f'UPDATE "{self._table}" SET ix{i}_pk = json_extract(body, {ipk}), '
                f"ix{i}_sk = json_extract(body, {isk}) "
                f"WHERE json_extract(body, {ipk}) IS NOT NULL AND json_extract(body, {isk}) IS NOT NULL"
            )

    def items_off_index(self, index: str, sk: str) -> list[Item]:
        """The items with sort key ``sk`` that are not on ``index`` — a one-off local migration's read (a scan of
        the file), never a request's."""
        i = self._indexes[index]
        sql = f'SELECT body FROM "{self._table}" WHERE sk = ? AND ix{i}_pk IS NULL'
        with self._read() as db:
            return [json.loads(row[0]) for row in db.execute(sql, (sk,))]

    @property
    def schema(self) -> TableSchema:
        return self._schema

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------------------------- plumbing
    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"local store read failed: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"local store busy: {exc}") from exc
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"local store write failed: {exc}") from exc

    def _load(self, db: sqlite3.Connection, pk: str, sk: str) -> Item | None:
        row = db.execute(f'SELECT body FROM "{self._table}" WHERE pk = ? AND sk = ?', (pk, sk)).fetchone()
        return json.loads(row[0]) if row else None

    def _store(self, db: sqlite3.Connection, item: Item) -> None:
        check_item_size(item)  # DynamoDB's 400 KB, refused as DynamoDB does (inside the write: rolled back)
        columns, values = ["pk", "sk", "body"], [item[PK], item[SK], json.dumps(item)]
        for name, i in self._indexes.items():
            ipk, isk = self._schema.indexes[name]
            present = ipk in item and isk in item
            columns += [f"ix{i}_pk", f"ix{i}_sk"]
            values += [str(item[ipk]) if present else None, str(item[isk]) if present else None]
        marks = ", ".join("?" for _ in columns)
        db.execute(f'INSERT OR REPLACE INTO "{self._table}" ({", ".join(columns)}) VALUES ({marks})', values)

    def _remove(self, db: sqlite3.Connection, pk: str, sk: str) -> bool:
        cursor = db.execute(f'DELETE FROM "{self._table}" WHERE pk = ? AND sk = ?', (pk, sk))
        return cursor.rowcount > 0

    def _apply(self, db: sqlite3.Connection, op: WriteOp, existing: Item | None) -> None:
        if isinstance(op, Put):
            self._store(db, dict(op.item))
        elif isinstance(op, Delete):
            self._remove(db, op.pk, op.sk)
        else:
            self._store(db, {**(existing or {PK: op.pk, SK: op.sk}), **op.values})

    # ------------------------------------------------------------------------------------- protocol
    def get(self, pk: str, sk: str) -> Item | None:
        with self._read() as db:
            return self._load(db, pk, sk)

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        with self._read() as db:
            found = (self._load(db, pk, sk) for pk, sk in dict.fromkeys(keys))
            return [item for item in found if item is not None]

    def put(self, item: Item, *, condition: Condition = None) -> None:
        self.transact([Put(item, condition)])

    def update(self, pk: str, sk: str, values: Item, *, condition: Condition = None) -> None:
        self.transact([Update(pk, sk, values, condition)])

    def increment(
        self,
        pk: str,
        sk: str,
        deltas: Mapping[str, int],
        *,
        limits: Mapping[str, int] | None = None,
        values: Item | None = None,
        must_exist: bool = False,
    ) -> Item:
        with self._write() as db:
            item = incremented(self._load(db, pk, sk), pk, sk, deltas, limits, values, must_exist)
            self._store(db, item)
            return item

    def delete(self, pk: str, sk: str) -> bool:
        with self._write() as db:
            return self._remove(db, pk, sk)

    def put_many(self, items: Sequence[Item]) -> None:
        with self._write() as db:
            for item in items:
                self._store(db, dict(item))

    def delete_many(self, keys: Sequence[Key]) -> None:
        with self._write() as db:
            for pk, sk in keys:
                self._remove(db, pk, sk)

    def transact(self, ops: Sequence[WriteOp]) -> None:
        check_transaction(ops)
        with self._write() as db:
            existing = []
            for op in ops:
                current = self._load(db, *op_key(op))
                if not condition_holds(current, op.condition):
                    raise Conflict("the item changed or exists already (conditional write failed)")
                existing.append(current)
            for op, current in zip(ops, existing, strict=True):
                self._apply(db, op, current)

    def query(
        self,
        pk: str,
        *,
        sk_prefix: str | None = None,
        index: str | None = None,
        forward: bool = True,
        limit: int | None = None,
        start_key: Mapping[str, str] | None = None,
        filters: Mapping[str, str | int] | None = None,
        sk_range: tuple[str, str] | None = None,
    ) -> Page:
        if index is None:
            pcol, scol, order = "pk", "sk", ["sk"]
            start = [start_key[SK]] if start_key else []
        else:
            isk = self._schema.index_keys(index)[1]
            i = self._indexes[index]
            pcol, scol, order = f"ix{i}_pk", f"ix{i}_sk", [f"ix{i}_sk", "pk", "sk"]
            start = [start_key[isk], start_key[PK], start_key[SK]] if start_key else []
        where, params = [f"{pcol} = ?"], [pk]
        if sk_prefix:
            where.append(f"{scol} >= ? AND {scol} < ?")
            params += [sk_prefix, prefix_upper(sk_prefix)]
        elif sk_range:
            where.append(f"{scol} >= ? AND {scol} <= ?")
            params += list(sk_range)
        if start:
            where.append(f"({', '.join(order)}) {'>' if forward else '<'} ({', '.join('?' for _ in start)})")
            params += start
        direction = "" if forward else " DESC"
        sql = (
            f'SELECT body FROM "{self._table}" WHERE {" AND ".join(where)} '
            f"ORDER BY {', '.join(col + direction for col in order)}"
        )
        with self._read() as db:
            rows = (json.loads(row[0]) for row in db.execute(sql, params))
            return paginate(rows, self._schema, index=index, limit=limit, filters=filters)


def open_local_tables(data_dir: str | Path) -> tuple[SqliteItemTable, SqliteItemTable]:
    """The main table and the audit table of the local embedded mode, in ``<data_dir>/mneme.sqlite3``."""
    path = Path(data_dir) / "mneme.sqlite3"
    return SqliteItemTable(path, "main", MAIN_SCHEMA), SqliteItemTable(path, "audit", AUDIT_SCHEMA)
