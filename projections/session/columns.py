"""The columns of a session's index, kept as packed arrays rather than one Python object per
row: at 100,000 messages an event hash as a ``str`` costs 113 bytes and as 32 packed bytes 32;
a version as an ``int`` object 28 bytes plus its list slot, in an ``array`` 8. A snapshot
stores each column as its bytes, so decoding it is a copy, not 100,000 objects.

Pure: no I/O.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol
from uuid import UUID

from projections.context.holes import Holed, RowsNotLoaded, missing_rows

__all__ = [
    "EncodingColumn",
    "HashColumn",
    "IdColumn",
    "IdIndex",
    "RoleColumn",
    "TextColumn",
    "TokenColumn",
    "microseconds",
    "packed_bytes",
    "packed_ints",
    "unpacked",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class TextColumn(Protocol):
    """A column read as text by row index."""

    def __getitem__(self, index: int) -> str: ...

    def __len__(self) -> int: ...


def packed_ints(values: Iterable[int] = ()) -> array[int]:
    """A column of 64-bit integers."""
    return array("q", values)


def packed_bytes(column: array[int]) -> bytes:
    """A column of integers as snapshot bytes (little-endian)."""
    if sys.byteorder == "big":
        column = array(column.typecode, column)
        column.byteswap()
    return column.tobytes()


def unpacked(typecode: str, data: bytes) -> array[int]:
    """A column saved by :func:`packed_bytes` (``typecode``: the array's, e.g. ``"q"``)."""
    column = array(typecode)
    column.frombytes(data)
    if sys.byteorder == "big":
        column.byteswap()
    return column


def microseconds(moment: datetime) -> int:
    """A time as whole microseconds since the epoch (exact, unlike a float timestamp)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


class _Packed:
    """Fixed-width binary values in one ``bytearray``, shown as text."""

    width = 0

    def __init__(self, data: bytes | bytearray = b"") -> None:
        if len(data) % self.width:
            raise ValueError(f"a column of {self.width}-byte values got {len(data)} bytes")
        # A bytearray is taken as it is (a decoder's fresh one), not copied.
        self._data = data if isinstance(data, bytearray) else bytearray(data)

    def __len__(self) -> int:
        return len(self._data) // self.width

    def __iter__(self) -> Iterator[str]:
        return (self[index] for index in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Packed) and type(other) is type(self) and self._data == other._data
        )

    def raw(self, index: int) -> bytes:
        """The packed bytes of value ``index``."""
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} out of a column of {len(self)}")
        start = (index % len(self)) * self.width
        return bytes(self._data[start : start + self.width])

    def rows_bytes(self, first: int, end: int) -> bytes:
        """The packed bytes of values ``[first, end)``."""
        return bytes(self._data[first * self.width : end * self.width])

    def append_raw(self, value: bytes) -> None:
        """Append a value given as its packed bytes."""
        if len(value) != self.width:
            raise ValueError(f"a {self.width}-byte value was expected, got {len(value)} bytes")
        self._data += value

    def to_bytes(self) -> bytes:
        """The column as snapshot bytes (the constructor takes them back)."""
        return bytes(self._data)

    def __getitem__(self, index: int) -> str:
        raise NotImplementedError


class HashColumn(_Packed):
    """BLAKE3 event hashes (32 bytes each), read as hex; an unknown hash is ``""``."""

    width = 32

    def append(self, value: str) -> None:
        """Append a hash given as hex (``""``: unknown, kept as zeros)."""
        self.append_raw(bytes.fromhex(value) if value else bytes(self.width))

    def __getitem__(self, index: int) -> str:
        raw = self.raw(index)
        return raw.hex() if any(raw) else ""


class IdColumn(_Packed):
    """Event ids (UUIDs, 16 bytes each), read as their canonical text; unknown is ``""``."""

    width = 16

    def append(self, value: str) -> None:
        """Append an event id given as text (``""``: unknown, kept as zeros)."""
        self.append_raw(UUID(value).bytes if value else bytes(self.width))

    def __getitem__(self, index: int) -> str:
        raw = self.raw(index)
        return str(UUID(bytes=raw)) if any(raw) else ""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and self.find(value) is not None

    def find(self, value: str) -> int | None:
        """The index of an event id (None: not held, or not an event id)."""
        try:
            packed = UUID(value).bytes
        except ValueError:
            return None
        start = self._data.find(packed)
        while start != -1 and start % self.width:
            start = self._data.find(packed, start + 1)
        return None if start == -1 else start // self.width


class TokenColumn(Mapping[str, int]):
    """Each message's tokens, by message id: one packed column read through the index's
    ``index_of`` (a ``dict`` of ids to counts cost another entry and int object a row)."""

    def __init__(self, index_of: Mapping[str, int], counts: array[int] | None = None) -> None:
        self._index_of = index_of
        self.counts = counts if counts is not None else packed_ints()

    def __getitem__(self, message_id: str) -> int:
        return self.counts[self._index_of[message_id]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index_of)

    def __len__(self) -> int:
        return len(self._index_of)

    def append(self, count: int) -> None:
        """The tokens of the next message (its id already in ``index_of``)."""
        self.counts.append(count)


class EncodingColumn:
    """The tokenizer each message was counted with: one small code a row into the few names a
    session uses (a ``dict`` of ids to names cost about 100 bytes a row and most of a
    snapshot's decoding); ``""`` where none is known (an erased message)."""

    def __init__(self, names: Iterable[str] = (), codes: array[int] | None = None) -> None:
        self.names = list(names) or [""]
        self.codes = codes if codes is not None else array("H")
        self._code_of = {name: code for code, name in enumerate(self.names)}

    def append(self, name: str) -> None:
        """The tokenizer of the next message."""
        code = self._code_of.get(name)
        if code is None:
            code = self._code_of[name] = len(self.names)
            self.names.append(name)
        self.codes.append(code)

    def __getitem__(self, index: int) -> str:
        return self.names[self.codes[index]]

    def __len__(self) -> int:
        return len(self.codes)

    def used(self, indexes: Iterable[int] | None = None) -> set[str]:
        """The names used by these rows (default: all), without the unknown ``""``."""
        codes = set(self.codes) if indexes is None else {self.codes[i] for i in indexes}
        return {self.names[code] for code in codes} - {""}


class IdIndex(MutableMapping[str, int]):
    """Message ids to their rows, built from the ids on first use: a process that opens a
    session and renders it looks no message up by id, and building the ``dict`` is about
    a third of decoding a 100,000-message index. Over ids with rows not loaded
    (:class:`~projections.context.holes.Holed`), an id not among the loaded ones raises
    :class:`~projections.context.holes.RowsNotLoaded`: it may be in the rest."""

    def __init__(self, ids: Sequence[str]) -> None:
        self._ids = ids
        self._rows: dict[str, int] | None = None

    def _built(self) -> dict[str, int]:
        if self._rows is None:
            ids = self._ids
            if isinstance(ids, Holed):
                self._rows = {message_id: row for row, message_id in ids.loaded()}
            else:
                self._rows = dict(zip(ids, range(len(ids)), strict=True))
        return self._rows

    def _absent(self, message_id: object) -> None:
        if missing_rows(self._ids):
            raise RowsNotLoaded(f"message {message_id!r} may be among the rows not loaded")

    def __getitem__(self, message_id: str) -> int:
        row = self._built().get(message_id)
        if row is None:
            self._absent(message_id)
            raise KeyError(message_id)
        return row

    def __contains__(self, message_id: object) -> bool:
        if message_id in self._built():
            return True
        self._absent(message_id)
        return False

    def get(self, message_id: str, default: int | None = None) -> int | None:  # type: ignore[override]
        row = self._built().get(message_id)
        if row is None:
            self._absent(message_id)
            return default
        return row

    def __setitem__(self, message_id: str, row: int) -> None:
        self._built()[message_id] = row

    def __delitem__(self, message_id: str) -> None:
        del self._built()[message_id]

    def __iter__(self) -> Iterator[str]:
        self._absent("any")
        return iter(self._built())

    def __len__(self) -> int:
        self._absent("any")
        return len(self._built())


_ROLE_CODES = {"system": "s", "developer": "d", "user": "u", "assistant": "a", "tool": "t"}
_ROLE_BYTES = {role: code.encode("ascii") for role, code in _ROLE_CODES.items()}
_ROLE_OF = {ord(code): role for role, code in _ROLE_CODES.items()}


class RoleColumn:
    """Each message's role as one byte (a list of roles cost a slot a row, and decoding
    one a lookup a row)."""

    def __init__(self, codes: bytes | bytearray = b"") -> None:
        self.codes = codes if isinstance(codes, bytearray) else bytearray(codes)
        unknown = set(self.codes) - _ROLE_OF.keys()
        if unknown:
            raise ValueError(f"unknown role codes {sorted(map(chr, unknown))}")

    def append(self, role: str) -> None:
        """The role of the next message."""
        self.codes += _ROLE_BYTES[role]

    def __getitem__(self, index: int) -> str:
        return _ROLE_OF[self.codes[index]]

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self) -> Iterator[str]:
        return (_ROLE_OF[code] for code in self.codes)
