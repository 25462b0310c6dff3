"""A tenant's memory policy: what may be promoted without consent, what never, for how long.

Recorded in the log (``MemoryPolicySet`` on ``policy/memory``) so that every promotion names the
policy version it was decided under; loadable from a TOML file. Pure apart from reading the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from projections.errors import MemoryRequestError

__all__ = ["DEFAULT_NEVER_PROMOTE", "MemoryPolicy", "key_matches"]

#: Categories that are never promoted unless a policy says otherwise.
DEFAULT_NEVER_PROMOTE = ("secrets", "health", "government_id")


def key_matches(key: str, patterns: list[str]) -> bool:
    """Whether ``key`` equals one of ``patterns`` or matches one as a glob (``preference.*``)."""
    return any(key == pattern or fnmatchcase(key, pattern) for pattern in patterns)


class MemoryPolicy(BaseModel):
    """What a tenant allows to outlive a session.

    Example TOML (every field is optional)::

        allowed_without_consent = []            # categories promoted on policy alone
        never_promote = ["secrets", "health", "government_id"]
        session_specific = ["task_event"]       # need a consent that names the key itself
        default_ttl_days = 180
        min_confidence = 0.7

        [long_term_keys]                        # summary facts proposed as candidates
        "preference.*" = "preference"
        "profile.*" = "profile"
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed_without_consent: list[str] = Field(default_factory=list)
    never_promote: list[str] = Field(default_factory=lambda: list(DEFAULT_NEVER_PROMOTE))
    session_specific: list[str] = Field(default_factory=lambda: ["task_event"])
    default_ttl_days: float = Field(default=180, gt=0)
    min_confidence: float = Field(default=0.7, ge=0, le=1)
    long_term_keys: dict[str, str] = Field(
        default_factory=lambda: {"preference.*": "preference", "profile.*": "profile"}
    )

    @model_validator(mode="after")
    def _consistent(self) -> MemoryPolicy:
        both = sorted(set(self.allowed_without_consent) & set(self.never_promote))
        if both:
            raise ValueError(
                f"categories {both} are both allowed without consent and never promoted; "
                f"remove them from one of the two lists"
            )
        return self

    def consent_notes(self, categories: Sequence[str]) -> list[str]:
        """What a consent for ``categories`` will not do under this policy, in words: a
        category it never promotes, or one it does not name anywhere (a proposal may still
        use it, but no summary fact is proposed under it)."""
        named = {
            *self.allowed_without_consent,
            *self.session_specific,
            *self.long_term_keys.values(),
        }
        notes = []
        for category in categories:
            if category in self.never_promote:
                notes.append(
                    f"the policy never promotes category {category!r}: the consent is recorded, "
                    f"but no memory of that category will be kept"
                )
            elif category not in named:
                known = ", ".join(sorted(named)) or "none"
                notes.append(
                    f"category {category!r} is not one the policy names ({known}): only "
                    f"proposals that name it themselves can be promoted under this consent"
                )
        return notes

    def long_term_category(self, key: str) -> str | None:
        """The category of a summary fact's key if the policy keeps such facts, else None."""
        for pattern, category in self.long_term_keys.items():
            if key == pattern or fnmatchcase(key, pattern):
                return category
        return None

    @classmethod
    def from_toml(cls, path: str | Path) -> MemoryPolicy:
        """Load a policy from a TOML file.

        Raises:
            MemoryRequestError: the file is missing, not TOML, or not a valid policy.
        """
        file = Path(path)
        try:
            raw = tomllib.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MemoryRequestError(f"memory policy file {file} does not exist") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise MemoryRequestError(f"cannot read memory policy {file}: {error}") from error
        try:
            return cls.model_validate(raw)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'policy'}: {e['msg']}" for e in error.errors()
            )
            raise MemoryRequestError(
                f"memory policy {file} is not valid: {problems}. Allowed fields: "
                f"{', '.join(cls.model_fields)}"
            ) from error
