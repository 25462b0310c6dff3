"""Which keys name a secret: one vocabulary for JSON keys, ``key=value`` pairs, headers and
prose ("my password is ..."), compared case- and separator-insensitively.

A key is split into words (``otp_secret``, ``pinCode``, ``X-API-Key``, ``Client-Secret``) and
glued (``apikey``, ``accesstoken``). It names a secret when one of its words is a secret word
(``password``, ``pin``, ``token``, ...), when the glued form holds a secret compound
(``privatekey``, ``connectionstring``, ...), or when ``key`` follows a word that makes it a
credential (``api key``, ``account key``, ``shared access key``) — unless its last word says the
value is about the secret, not the secret (``token_type``, ``password_hint``, ``max_tokens``).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["is_sensitive_key", "key_words"]

SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "pass", "passphrase", "passcode", "pin", "otp", "totp",
        "hotp", "mfa", "secret", "secrets", "token", "authorization", "auth", "cookie",
        "cookies", "credential", "credentials", "cvv", "cvv2", "cvc", "cvc2", "csc", "sig",
        "ssn", "sas", "bearer", "apikey", "privatekey", "mnemonic", "seedphrase",
    }
)  # fmt: skip
SECRET_COMPOUNDS = (
    "password", "passphrase", "passcode", "apikey", "accesskey", "secretkey", "privatekey",
    "signingkey", "accesstoken", "authtoken", "refreshtoken", "idtoken", "apitoken",
    "sessiontoken", "bearertoken", "clientsecret", "connectionstring", "connstring",
    "authorization", "credential", "otpsecret", "securityanswer", "secretanswer", "onetime",
    "verificationcode", "securitycode", "authcode", "logincode", "recoverycode", "backupcode",
    "encryptionkey", "masterkey", "sharedkey", "licensekey", "sessionid", "setcookie",
)  # fmt: skip
KEY_QUALIFIERS = frozenset(
    {
        "api", "access", "secret", "private", "account", "shared", "signing", "encryption",
        "master", "auth", "client", "app", "admin", "license", "service", "subscription", "ssh",
        "storage", "instrumentation", "deploy", "gpg", "pgp", "webhook", "root",
    }
)  # fmt: skip
# A last word that makes the value a property of the secret, not the secret.
ABOUT_WORDS = frozenset(
    {
        "type", "types", "count", "counts", "length", "len", "size", "limit", "limits",
        "expires", "expiry", "expiration", "ttl", "url", "uri", "endpoint", "name", "names",
        "policy", "required", "enabled", "format", "strength", "hint", "usage", "method",
        "methods", "kind", "scope", "scopes", "id", "ids", "last4", "set", "changed", "updated",
        "created", "at", "version", "path", "file", "header", "field", "prompt", "label",
        "question", "rotation", "reset", "status", "valid", "present", "exists", "mask",
    }
)  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def key_words(name: str) -> list[str]:
    """``name`` as lower-case words: ``X-API-Key`` -> ``["x", "api", "key"]``."""
    return [w.lower() for w in _SEPARATORS.split(_CAMEL.sub(" ", name)) if w]


@lru_cache(maxsize=4096)
def is_sensitive_key(name: str) -> bool:
    """Whether a value under ``name`` is a secret (see the module docstring)."""
    words = key_words(name)
    if not words or len(words) > 6 or words[-1] in ABOUT_WORDS:
        return False
    glued = "".join(words)
    if any(word in SECRET_WORDS for word in words):
        return True
    if any(compound in glued for compound in SECRET_COMPOUNDS):
        return True
    return any(
        word in ("key", "keys") and index and words[index - 1] in KEY_QUALIFIERS
        for index, word in enumerate(words)
    )
