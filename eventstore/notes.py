"""Signed checkpoints: C2SP ``tlog-checkpoint`` bodies in C2SP ``signed-note`` envelopes,
signed with Ed25519.

A checkpoint body is three lines, the log's origin, the tree size in decimal and the root hash
in base64, plus ctxledger's extension line naming the Merkle hash
(``ctxledger-merkle: blake3``). The note is the body, an empty line, and one line per
signature: ``— <key name> <base64(key id || signature)>``. The key id is the first 4 bytes of
``SHA-256(key name || "\\n" || 0x01 || public key)``; a verifier key is written
``<name>+<key id in hex>+<base64(0x01 || public key)>``.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from eventstore.errors import LedgerError

# cryptography is imported where a key is used: a store that never signs or checks a note
# (most opens) does not load it.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = [
    "Checkpoint",
    "NoteError",
    "Signer",
    "Verifier",
    "checkpoint_body",
    "open_note",
    "parse_checkpoint",
    "sign_note",
]

_ED25519 = b"\x01"
_DASH = "\u2014"
EXTENSION = "ctxledger-merkle: "
HEADS_EXTENSION = "ctxledger-heads: "


class NoteError(LedgerError):
    """A note or checkpoint is malformed, or its signature does not verify."""


def _key_id(name: str, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + _ED25519 + public).digest()[:4]


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"a key name is non-empty, without spaces or '+', got {name!r}")
    return name


@dataclass(frozen=True)
class Verifier:
    """A public key that checks signatures on notes."""

    name: str
    public: bytes

    @property
    def key_id(self) -> bytes:
        return _key_id(self.name, self.public)

    def encode(self) -> str:
        """``<name>+<key id hex>+<base64(0x01 || public key)>``."""
        return (
            f"{self.name}+{self.key_id.hex()}+{base64.b64encode(_ED25519 + self.public).decode()}"
        )

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """Read a verifier key (raises :class:`NoteError`)."""
        parts = text.strip().split("+", 2)  # base64 may itself hold "+"
        if len(parts) != 3:
            raise NoteError(f"a verifier key is name+keyid+base64key, got {text.strip()[:60]!r}")
        name, key_id, encoded = parts
        try:
            raw = base64.b64decode(encoded, validate=True)
        except ValueError as error:
            raise NoteError(f"verifier key {name!r}: the key is not base64 ({error})") from None
        if len(raw) != 33 or raw[:1] != _ED25519:
            raise NoteError(f"verifier key {name!r} is not an Ed25519 key")
        verifier = cls(_check_name(name), raw[1:])
        if verifier.key_id.hex() != key_id.lower():
            raise NoteError(f"verifier key {name!r}: key id {key_id} does not match the key")
        return verifier

    def verify(self, message: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's Ed25519 signature of ``message``."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


class Signer:
    """An Ed25519 private key with a name, which signs notes."""

    def __init__(self, name: str, key: Ed25519PrivateKey) -> None:
        self.name = _check_name(name)
        from cryptography.hazmat.primitives import serialization

        self.key = key
        public = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.verifier = Verifier(self.name, public)

    @classmethod
    def generate(cls, name: str) -> Signer:
        """A new key."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(name, Ed25519PrivateKey.generate())

    def to_pem(self) -> bytes:
        """The private key as unencrypted PKCS#8 PEM (keep it secret)."""
        from cryptography.hazmat.primitives import serialization

        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @classmethod
    def from_pem(cls, name: str, pem: bytes) -> Signer:
        """A signer from a PKCS#8 PEM Ed25519 private key (raises :class:`NoteError`)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as error:
            raise NoteError(f"cannot read the signing key: {error}") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise NoteError(f"the signing key is a {type(key).__name__}, not an Ed25519 key")
        return cls(name, key)

    @classmethod
    def load(
        cls, name: str, path: str | Path | None = None, env: str = "CTXLEDGER_SIGNING_KEY"
    ) -> Signer:
        """From a PEM file, or the PEM text in the environment variable ``env``."""
        if path is not None:
            try:
                return cls.from_pem(name, Path(path).read_bytes())
            except OSError as error:
                raise NoteError(f"cannot read the signing key file {path}: {error}") from None
        text = os.environ.get(env)
        if not text:
            raise NoteError(f"no signing key: give a key file or set {env} to a PEM key")
        return cls.from_pem(name, text.encode())

    def sign(self, message: bytes) -> bytes:
        return self.key.sign(message)


def sign_note(body: str, signers: list[Signer]) -> str:
    """The signed note: ``body`` (which must end with a newline), an empty line, signatures."""
    if not body.endswith("\n") or "\n\n" in body:
        raise NoteError("a note body ends with one newline and has no empty line")
    lines = [
        f"{_DASH} {s.name} " + base64.b64encode(s.verifier.key_id + s.sign(body.encode())).decode()
        for s in signers
    ]
    return body + "\n" + "".join(line + "\n" for line in lines)


def open_note(note: str, verifiers: list[Verifier]) -> tuple[str, list[str]]:
    """Split a signed note; return its body and the names of the given keys whose signatures
    verify. Raises :class:`NoteError` if it is malformed or a known key's signature is bad."""
    body, sep, signatures = note.rpartition("\n\n")
    if not sep or not signatures.endswith("\n"):
        raise NoteError("a signed note is a body, an empty line, and signature lines")
    body += "\n"
    by_id = {(v.name, v.key_id): v for v in verifiers}
    verified = []
    for line in signatures.splitlines():
        dash, _, rest = line.partition(" ")
        name, _, encoded = rest.partition(" ")
        if dash != _DASH or not name or not encoded:
            raise NoteError(f"malformed signature line {line[:60]!r}")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise NoteError(f"signature of {name!r} is not base64") from None
        verifier = by_id.get((name, raw[:4]))
        if verifier is None:
            continue  # a key we were not asked to check
        if not verifier.verify(body.encode(), raw[4:]):
            raise NoteError(f"the signature of {name!r} does not verify: the note was altered")
        verified.append(name)
    return body, verified


@dataclass(frozen=True)
class Checkpoint:
    """What a checkpoint states: the log (origin), its size and root, and the hash used."""

    origin: str
    size: int
    root: bytes
    algorithm: str
    #: the stream heads at ``size``: their count and the root of their tree (see
    #: :mod:`eventstore.stream_heads`); None in checkpoints recorded before heads were signed
    heads: tuple[int, bytes] | None = None


def checkpoint_body(checkpoint: Checkpoint) -> str:
    """The C2SP ``tlog-checkpoint`` body, with ctxledger's extension line."""
    if not checkpoint.origin or "\n" in checkpoint.origin:
        raise NoteError(f"an origin is one non-empty line, got {checkpoint.origin!r}")
    body = (
        f"{checkpoint.origin}\n{checkpoint.size}\n{base64.b64encode(checkpoint.root).decode()}\n"
        f"{EXTENSION}{checkpoint.algorithm}\n"
    )
    if checkpoint.heads is not None:
        count, digest = checkpoint.heads
        body += f"{HEADS_EXTENSION}{count} {base64.b64encode(digest).decode()}\n"
    return body


def parse_checkpoint(body: str) -> Checkpoint:
    """Read a checkpoint body (raises :class:`NoteError`)."""
    lines = body.splitlines()
    if len(lines) < 3:
        raise NoteError("a checkpoint has an origin, a size and a root hash line")
    origin, size, encoded = lines[:3]
    if not size.isdigit() or (size != "0" and size.startswith("0")):
        raise NoteError(f"checkpoint size {size!r} is not a decimal number")
    try:
        digest = base64.b64decode(encoded, validate=True)
    except ValueError:
        raise NoteError(f"checkpoint root {encoded!r} is not base64") from None
    if len(digest) != 32:
        raise NoteError(f"checkpoint root is {len(digest)} bytes, expected 32")
    algorithm, heads = "sha256", None
    for extension in lines[3:]:
        if extension.startswith(EXTENSION):
            algorithm = extension[len(EXTENSION) :]
        elif extension.startswith(HEADS_EXTENSION):
            heads = _heads(extension[len(HEADS_EXTENSION) :])
    return Checkpoint(origin, int(size), digest, algorithm, heads)


def _heads(text: str) -> tuple[int, bytes]:
    count, _, encoded = text.partition(" ")
    try:
        digest = base64.b64decode(encoded, validate=True)
    except ValueError:
        raise NoteError(f"checkpoint heads root {encoded!r} is not base64") from None
    if not count.isdigit() or len(digest) != 32:
        raise NoteError(f"checkpoint heads line {text!r} is not '<count> <32-byte root>'")
    return int(count), digest
