"""The PostgreSQL backend (``postgresql+asyncpg://...``, needs ``asyncpg``): see
``backend.open_recorder`` for its options."""
