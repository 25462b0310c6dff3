"""Drop-in persistence for agent frameworks: the OpenAI Agents SDK (``openai_agents``) and
Google ADK (``adk``). Each module imports its framework only when used; install the extras
``ctxledger[openai-agents]`` or ``ctxledger[adk]``."""
