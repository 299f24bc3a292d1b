"""Values from outside as the class store keeps them: class and link codes, a student's token, a
teacher's key, a nickname, and the limits of the texts stored. A code read from a URL goes through
:func:`read_code`, which refuses anything but the code's own alphabet and length
(:class:`~tinygpt.config.ConfigError` naming the value)."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from tinygpt.classroom.store_text import clean_text
from tinygpt.config import ConfigError
from tinygpt.formatting import shown_text

#: Class codes: letters and digits that cannot be mistaken for each other (no I, O, 0, 1).
CLASS_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CLASS_CODE_LEN = 6
#: Short link codes: both cases, without l, I, O, 0 and 1.
LINK_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LINK_CODE_LEN = 7
#: A student's token (``me=``): 16 lower-case hex digits.
STUDENT_ALPHABET = "0123456789abcdef"
STUDENT_LEN = 16
#: A teacher's key (``key=``): 24 URL-safe characters (secrets.token_urlsafe(18)).
KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
KEY_LEN = 24
MAX_NICKNAME = 24
#: The longest query string a short link or a lesson holds (a long training text fits).
MAX_QUERY_CHARS = 8000
MAX_TEXT_CHARS = 2000
QUESTION_ID_LEN = 64


def read_code(raw: str, name: str, alphabet: str, length: int, upper: bool = False, key: str = "code") -> str:
    """A code from outside (a URL): exactly ``length`` characters of ``alphabet``.

    ``upper``: lower-case letters are read as upper-case (class codes are typed by hand).
    Raises ConfigError (its message key ``key``, with ``n`` = ``length``) naming the value and the accepted form.
    """
    text = raw.strip()
    if upper:
        text = text.upper()
    if len(text) != length or any(c not in alphabet for c in text):
        raise ConfigError(name, shown_text(raw), f"{length} characters of {alphabet}", key, n=length)
    return text


def read_class_code(raw: str) -> str:
    """A class code from a URL (``class=``) or typed by a student, case ignored; ConfigError (key
    ``class_code``: letters and digits, the length) otherwise."""
    return read_code(raw, "class", CLASS_ALPHABET, CLASS_CODE_LEN, upper=True, key="class_code")


def read_link_code(raw: str) -> str:
    """A short link's code from a URL (``s=``), in either case (a phone capitalises what a
    student types from a projector; :meth:`Store.resolve` finds the code ignoring case); ConfigError otherwise."""
    return read_code(raw, "s", LINK_ALPHABET + LINK_ALPHABET.swapcase(), LINK_CODE_LEN)


def read_student(raw: str) -> str:
    """A student's token from a URL (``me=``); ConfigError otherwise."""
    return read_code(raw.lower(), "me", STUDENT_ALPHABET, STUDENT_LEN)


def read_teacher_key(raw: str) -> str:
    """A teacher's key from a URL (``key=``); ConfigError otherwise."""
    return read_code(raw, "key", KEY_ALPHABET, KEY_LEN)


def new_student() -> str:
    """A fresh anonymous student token."""
    return secrets.token_hex(STUDENT_LEN // 2)


def clean_nickname(raw: str | None) -> str | None:
    """A nickname as stored: cleaned (:func:`~tinygpt.classroom.store_text.clean_text`), without invisible
    formatting characters (a right-to-left override would reverse it on the teacher's screen), blanks joined,
    at most :data:`MAX_NICKNAME` characters, None when empty."""
    text = "".join(c for c in clean_text(raw or "") if unicodedata.category(c) != "Cf")  # no direction overrides
    text = " ".join(text.split())[:MAX_NICKNAME]
    return text or None


def hash_key(key: str) -> str:
    """The hash kept of a teacher's key (hex SHA-256). The key is 144 random bits, so one round of
    SHA-256 cannot be reversed by guessing."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def random_code(alphabet: str, length: int) -> str:
    """A new code of ``length`` characters drawn from ``alphabet`` (cryptographically random)."""
    return "".join(secrets.choice(alphabet) for _ in range(length))
