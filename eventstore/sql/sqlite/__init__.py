"""The SQLite backend (``sqlite:///path``, ``sqlite+aiosqlite:///path`` or a plain path): see
``backend.open_recorder`` for its options."""
