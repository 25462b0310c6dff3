"""The primitives of a model call's context: messages and wire formats, token counting and
accounting, grouping at protocol boundaries, the window policy and the budget. Nothing here
knows of summaries or sessions."""
