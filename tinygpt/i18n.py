"""The app's strings in every language it speaks.

Each language is one catalogue: the package ``tinygpt/strings/<language>/`` with one module per
page (``common``, ``train``, ``predict``, ``attention``, ``theory``), each holding
``STRINGS: dict[str, str]``. Keys are prefixed by their page (``train.``, ``predict.``, ``attn.``,
``theory.``, ``step.``); text may hold ``{name}`` fields filled by :func:`t`, and literal braces
(LaTeX) are doubled. ``⟦term⟧`` in a text stands for the glossary's short phrase of that term
(``glossary.short.<term>`` of the same language), filled in when the catalogue loads, so a term's
phrase is worded in one place wherever a page glosses the term at its first use. Adding a
language is one new catalogue package plus its entry in :data:`LANGUAGES`. This module imports
neither torch nor Streamlit.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

#: The languages of the app, each with its name as shown in the language switch.
LANGUAGES: dict[str, str] = {"zh": "中文", "en": "English"}
#: The language of the seed text, used when nothing says otherwise.
DEFAULT_LANGUAGE = "zh"
#: The language for a browser locale that is none of LANGUAGES.
FALLBACK_LANGUAGE = "en"


def _load_language(language: str) -> dict[str, str]:
    package = importlib.import_module(f"tinygpt.strings.{language}")
    strings: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for key, text in module.STRINGS.items():
            if key in strings:
                raise KeyError(f"i18n key {key!r} is defined twice in {language} (again in {info.name}.py)")
            strings[key] = text
    return {key: _with_terms(key, text, strings, language) for key, text in strings.items()}


#: A glossary term's short phrase inside a text: ``⟦mask⟧`` → the text of ``glossary.short.mask``.
TERM = re.compile(r"⟦([a-z_]+)⟧")


def _with_terms(key: str, text: str, strings: dict[str, str], language: str) -> str:
    """``text`` with each ``⟦term⟧`` replaced by ``strings["glossary.short.<term>"]``.

    Raises KeyError naming ``key`` and the term when the glossary has no short phrase for it.
    """

    def phrase(match: re.Match[str]) -> str:
        short = f"glossary.short.{match.group(1)}"
        if short not in strings:
            raise KeyError(f"{language} text {key!r} uses ⟦{match.group(1)}⟧, but there is no {short!r}")
        return strings[short]

    return TERM.sub(phrase, text)


def _load() -> dict[str, dict[str, str]]:
    """key -> {language: text}, checking that every language has exactly the same keys."""
    by_language = {language: _load_language(language) for language in LANGUAGES}
    keys = set(by_language[DEFAULT_LANGUAGE])
    for language, strings in by_language.items():
        if set(strings) != keys:
            missing, extra = sorted(keys - set(strings)), sorted(set(strings) - keys)
            raise KeyError(
                f"catalogue {language!r} differs from {DEFAULT_LANGUAGE!r}: missing {missing}, extra {extra}"
            )
    return {
        key: {language: by_language[language][key] for language in LANGUAGES} for key in by_language[DEFAULT_LANGUAGE]
    }


#: key -> {language: text}; every key has a text in every language.
CATALOGUE: dict[str, dict[str, str]] = _load()


def _primary_subtag(tag: str) -> str:
    return tag.strip().lower().replace("_", "-").split("-")[0]


def normalize_language(value: str | None) -> str:
    """A language of the app from a tag such as 'en-US', 'zh-CN' or None (→ DEFAULT_LANGUAGE)."""
    if value and _primary_subtag(value) in LANGUAGES:
        return _primary_subtag(value)
    return DEFAULT_LANGUAGE


def language_from_locale(locale: str | None) -> str:
    """The app's language for a browser locale (BCP 47 tag, ``navigator.language``).

    A tag whose primary language is one of LANGUAGES gives that language ("zh-Hant-TW" → "zh",
    "en-GB" → "en"); any other language gives FALLBACK_LANGUAGE (a student whose browser speaks
    neither reads English more often than Chinese); no locale at all (``None`` or "", e.g. a
    client that did not send one) gives DEFAULT_LANGUAGE, the seed's language.
    """
    if not locale or not locale.strip():
        return DEFAULT_LANGUAGE
    primary = _primary_subtag(locale)
    return primary if primary in LANGUAGES else FALLBACK_LANGUAGE


def choose_language(url_value: str | None, locale: str | None) -> str:
    """The language a new session starts in: ``?lang=`` when it names one of LANGUAGES, else the locale's.

    An unknown ``?lang=`` value (e.g. "fr") is ignored rather than forcing the default.
    """
    if url_value and url_value.strip().lower() in LANGUAGES:
        return url_value.strip().lower()
    return language_from_locale(locale)


class Count(int):
    """An integer field that can also choose a word by number: ``{n:character|characters}``.

    A format spec holding ``|`` picks the text before it when the count is 1 and the text after
    it otherwise, so English says "1 character" and "2 characters" from one string; any other
    spec formats the integer as usual.
    """

    def __format__(self, spec: str) -> str:
        if "|" in spec:
            one, other = spec.split("|", 1)
            return one if self == 1 else other
        return int.__format__(self, spec)


def t(key: str, lang: str, **fields: object) -> str:
    """The text of ``key`` in ``lang`` with ``{fields}`` filled in (integers as :class:`Count`).

    Raises KeyError for an unknown key (a missing string is a bug the tests catch).
    """
    counted = {k: Count(v) if type(v) is int else v for k, v in fields.items()}
    return CATALOGUE[key][normalize_language(lang)].format(**counted)
