"""Messages, wire formats, token counting, grouping and budgets: the context of a model call."""
