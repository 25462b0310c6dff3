"""The in-memory backend (``memory://``): see ``backend.open_recorder``."""
