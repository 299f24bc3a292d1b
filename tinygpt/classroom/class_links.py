"""What a class's links and answers say, as plain functions (no Streamlit, no database).

- :func:`ascii_query`: a query string in ASCII only. Chat apps cut an auto-detected link at the
  first character outside ASCII (a Chinese character, full-width "，。"), so every link the app
  hands out percent-encodes them; ``,``, ``;``, ``:`` and ``=`` stay readable.
- :class:`LessonPlan` and :func:`lesson_params`: the query of a lesson a teacher builds (pages,
  the controls students may use, model, where it opens, guess first, the class), in the
  ``lesson=1&pages=…&show=…`` syntax ``tinygpt.ui.views.lesson`` reads.
- :func:`answers_csv`, :func:`answers_markdown`: "my answers" as a student downloads them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import parse_qsl, quote

#: Characters a link keeps as they are: ASCII letters and digits, "-._~" (never encoded) and the
#: separators the app's own parameters use (``train=v1;d_model=64``, ``show=a,b``, ``edits=0:1:2:3``).
LINK_SAFE = "-._~,;:="
#: Parameters that belong to one person and never go into a link for others: the student's
#: anonymous token, the teacher's key, a short link's code (resolved already), where the builder
#: was opened from, the student's concept check at its round at the end.
PRIVATE_PARAMS: tuple[str, ...] = ("me", "key", "s", "from", "check")
#: Parameters of a lesson and of a class (a lesson's other parameters are the view it opens on).
LESSON_KEYS: tuple[str, ...] = ("lesson", "pages", "show", "hide", "class")
#: The parameter of a short link's query that names the page it opens (a resume link's page).
PAGE_PARAM = "page"
#: The parameter of a lesson that names the identity of the model its view was made with.
MODEL_ID_PARAM = "mid"
#: Parameters of a link that are not a page's view: the lesson's and the class's, a person's own, a
#: resume link's page, the language and the model (read on every page).
NOT_VIEW = frozenset((*LESSON_KEYS, *PRIVATE_PARAMS, PAGE_PARAM, MODEL_ID_PARAM, "lang", "model", "train"))


def ascii_query(params: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """``k=v&…`` with everything but ASCII letters, digits and :data:`LINK_SAFE` percent-encoded (UTF-8).

    ``{"text": "我爱你，"}`` gives ``text=%E6%88%91%E7%88%B1%E4%BD%A0%EF%BC%8C``; browsers and
    Streamlit decode it back to the same text.
    """
    items = params.items() if isinstance(params, Mapping) else params
    return "&".join(f"{quote(str(k), safe=LINK_SAFE)}={quote(str(v), safe=LINK_SAFE)}" for k, v in items)


def is_ascii_link(url: str) -> bool:
    """True when ``url`` is printable ASCII without spaces (what chat apps keep whole)."""
    return url.isascii() and url.isprintable() and " " not in url


@dataclass(frozen=True)
class LessonPlan:
    """A lesson a teacher builds.

    Attributes:
        pages: URL paths of the pages students see, in the app's order (at least one).
        controls: the only controls students may use (widget keys), or None for every control.
        page_controls: every lockable control of ``pages`` (hidden all when ``controls`` is empty).
        model: ``textbook``, ``context`` or ``own``; ``train``: the own model's ``train=`` value.
        view: parameters of the view the lesson opens on (``step``, ``tau``, ``concept``, …).
        guess: students guess before they see (``guess=1``; the guess toggles are locked on).
        class_code: the class whose answers are collected, or None.
        lang: the language the lesson opens in (not with a class: a class's link opens in each
            student's own language).
    """

    pages: tuple[str, ...]
    controls: tuple[str, ...] | None = None
    page_controls: tuple[str, ...] = ()
    model: str = "textbook"
    train: str | None = None
    view: Mapping[str, str] = field(default_factory=dict)
    guess: bool = False
    class_code: str | None = None
    lang: str = "zh"


#: The toggles that switch guessing off; a lesson that asks to guess first keeps them out of reach.
GUESS_TOGGLES: tuple[str, ...] = ("attn_guess", "predict_guess")


def lesson_params(plan: LessonPlan) -> list[tuple[str, str]]:
    """The lesson's query parameters, in a fixed order (the same plan gives the same link).

    ``controls=None`` shows every control (except the guess toggles when ``guess``); an empty
    tuple hides every control of the lesson's pages. Raises ValueError without a page.
    """
    if not plan.pages:
        raise ValueError("a lesson needs at least one page")
    params: list[tuple[str, str]] = [("lesson", "1"), ("pages", ",".join(plan.pages))]
    if plan.controls is None:
        hidden = [k for k in GUESS_TOGGLES if k in plan.page_controls] if plan.guess else []
        if hidden:
            params.append(("hide", ",".join(hidden)))
    elif plan.controls:
        params.append(("show", ",".join(plan.controls)))
    elif plan.page_controls:
        params.append(("hide", ",".join(plan.page_controls)))
    params.append(("model", plan.model))
    if plan.model == "own" and plan.train:
        params.append(("train", plan.train))
    reserved = {"lesson", "pages", "show", "hide", "model", "train", "guess", "class", "lang", PAGE_PARAM}
    params.extend((k, v) for k, v in plan.view.items() if k not in reserved and k not in PRIVATE_PARAMS)
    if plan.guess:
        params.append(("guess", "1"))
    if plan.class_code:  # each student keeps her own language: a class's link names none
        params.append(("class", plan.class_code))
    else:
        params.append(("lang", plan.lang))
    return params


def query_with_class(query: str, code: str) -> str:
    """``query`` (a lesson's, as :func:`ascii_query` wrote it) with ``class=code`` last and without
    ``lang``: a class's link opens in each student's own language (her choice, else her browser's),
    not in the teacher's; the same class gives the same link."""
    params = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in ("class", "lang")]
    return ascii_query([*params, ("class", code)])


@dataclass(frozen=True)
class MyAnswer:
    """One answer of the student, as "my answers" lists it (``at``: Unix seconds; ``right`` None for a
    class vote the teacher has not revealed: whether it was right is not said yet)."""

    question_id: str
    question: str
    answer: str
    right: bool | None
    at: float
    class_code: str = ""


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _verdict(right: bool | None, yes: str, no: str, hidden: str) -> str:
    return hidden if right is None else yes if right else no


def answers_csv(answers: Sequence[MyAnswer], headers: Sequence[str], yes: str, no: str, hidden: str = "—") -> str:
    """The answers as CSV (UTF-8 text): one row per answer under ``headers`` (time, class,
    question, answer, right; in the student's language), ``yes``/``no`` for right or wrong,
    ``hidden`` for a vote not revealed yet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for a in answers:
        writer.writerow([_when(a.at), a.class_code, a.question, a.answer, _verdict(a.right, yes, no, hidden)])
    return out.getvalue()


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def answers_markdown(
    answers: Sequence[MyAnswer],
    title: str,
    score: str,
    headers: Sequence[str],
    yes: str,
    no: str,
    hidden: str = "—",
) -> str:
    """The answers as a Markdown document: ``title``, the ``score`` line, then a table (``hidden`` in
    the last column for a vote not revealed yet)."""
    lines = [f"# {title}", "", score, "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for a in answers:
        row = [_when(a.at), a.class_code or "—", _cell(a.question), _cell(a.answer), _verdict(a.right, yes, no, hidden)]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"
