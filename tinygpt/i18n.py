"""Chinese / English strings of the app.

The catalogue is assembled from ``tinygpt/strings/*.py``, one module per page plus ``common``;
each module has ``STRINGS: dict[str, tuple[str, str]]`` mapping a key to its (zh, en) text.
Text may hold ``{name}`` fields filled by :func:`t`; literal braces (LaTeX) are doubled.
"""

from __future__ import annotations

import importlib
import pkgutil

from tinygpt import strings as _strings_pkg

LANGUAGES: tuple[str, ...] = ("zh", "en")
DEFAULT_LANGUAGE = "zh"


def _load() -> dict[str, dict[str, str]]:
    catalogue: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(_strings_pkg.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{_strings_pkg.__name__}.{info.name}")
        for key, (zh, en) in module.STRINGS.items():
            if key in catalogue:
                raise KeyError(f"i18n key {key!r} is defined twice (again in strings/{info.name}.py)")
            catalogue[key] = {"zh": zh, "en": en}
    return catalogue


CATALOGUE: dict[str, dict[str, str]] = _load()


def normalize_language(value: str | None) -> str:
    """'zh' or 'en' from a language tag such as 'en-US', 'zh-CN' or None (→ the default)."""
    if value:
        tag = value.strip().lower()[:2]
        if tag in LANGUAGES:
            return tag
    return DEFAULT_LANGUAGE


def language_from_locale(locale: str | None) -> str:
    """The app's language for a browser locale (BCP 47 tag, ``navigator.language``).

    Chinese tags ("zh", "zh-CN", "zh-Hant-TW") give "zh"; English and every other language give "en"
    (a student whose browser speaks neither reads English more often than Chinese); no locale at all
    (``None`` or "", e.g. a client that did not send one) gives the default, Chinese, the seed's language.
    """
    if not locale or not locale.strip():
        return DEFAULT_LANGUAGE
    return "zh" if locale.strip().lower().replace("_", "-").split("-")[0] == "zh" else "en"


def choose_language(url_value: str | None, locale: str | None) -> str:
    """The language a new session starts in: ``?lang=`` when it names one of LANGUAGES, else the locale's.

    An unknown ``?lang=`` value (e.g. "fr") is ignored rather than forcing the default.
    """
    if url_value and url_value.strip().lower() in LANGUAGES:
        return url_value.strip().lower()
    return language_from_locale(locale)


def t(key: str, lang: str, **fields: object) -> str:
    """The text of ``key`` in ``lang`` with ``{fields}`` filled in.

    Raises KeyError for an unknown key (a missing string is a bug the tests catch).
    """
    return CATALOGUE[key][normalize_language(lang)].format(**fields)
