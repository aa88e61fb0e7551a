"""Batched statements of the import: many rows into one table with one executemany, binding only the
columns that say something; rows matching many values with one statement."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import itemgetter, ne

from sqlalchemy import Connection

IN_VALUES = "IN (SELECT value FROM json_each(?))"


def rows_for(conn: Connection, sql: str, values: list) -> list[tuple]:
    """Rows of ``sql`` for all ``values``: its one parameter is the list its :data:`IN_VALUES` reads,
    bound as one JSON array (one statement whatever their number, no variable limit)."""
    if not values:
        return []
    return conn.exec_driver_sql(sql, (json.dumps(values, ensure_ascii=False),)).all()


def insert_rows(conn: Connection, table: str, columns: Sequence[str], rows: list[tuple],
                defaults: Mapping[str, object]) -> None:
    """INSERT ``rows`` (values in ``columns`` order) into ``table``. A column of ``defaults`` (column ->
    its default in the schema) that holds that default in every row is left out of the statement:
    SQLite stores the same default, and no row binds it (binding a NULL costs about what a value does)."""
    if not rows:
        return
    unused = {i for i, column in enumerate(columns)
              if column in defaults and not any(map(partial(ne, defaults[column]), map(itemgetter(i), rows)))}
    if unused:
        kept = [i for i in range(len(columns)) if i not in unused]
        columns = [columns[i] for i in kept]
        rows = list(map(_pick(kept), rows))
    conn.exec_driver_sql(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                         rows)


def _pick(indexes: list[int]) -> Callable[[tuple], tuple]:
    """A function giving a row's values at ``indexes``, as a tuple."""
    if len(indexes) == 1:
        return lambda row: (row[indexes[0]],)
    return itemgetter(*indexes)
