"""The app-wide URL parameters: one declarative table.

A page's own view (the text, the layer, τ, …) is in its page table and read by
:func:`tinygpt.ui.frame.url.load`. The parameters below belong to the whole app instead: the language, a
lesson, a class, a short link, a student's resume token, a teacher's key, the page the lesson
builder was opened from, the concept check's round at the end while it is open. Each is read once
where the app starts or where its page needs it, always through :func:`tinygpt.ui.frame.url.app_param`,
which accepts only the names of this table and takes a secret out of the address as soon as it is
read (a copied or projected address does not share it).

Each row names the parameter, the pure function that checks its text where one exists (it raises
:class:`tinygpt.config.ConfigError` for a value it refuses), the function of the Streamlit layer
that reads it, whether it is a secret, and the i18n key of the message a refused value gets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tinygpt.classroom.store_values import read_class_code, read_link_code, read_student, read_teacher_key
from tinygpt.i18n import choose_language


@dataclass(frozen=True)
class AppParam:
    """One app-wide query parameter.

    Attributes:
        name: the parameter's name in the URL.
        read_by: the function of ``tinygpt.ui`` that reads it ("module:function").
        reader: the pure function that turns its text into a value (raising ConfigError for a
            value it refuses), or None when the reading function checks it itself.
        secret: True when the value belongs to one person: taken out of the address once read.
        message: the i18n key of the message a refused value gets (None: a value is never refused).
    """

    name: str
    read_by: str
    reader: Callable[..., Any] | None = None
    secret: bool = False
    message: str | None = None


_ROWS = (
    AppParam("lang", "tinygpt.ui.frame.language:lang", choose_language, message="app.lang_refused"),
    # tinygpt.ui.views.lesson.parse_lesson reads the four together
    AppParam("lesson", "tinygpt.ui.views.lesson:lesson"),
    AppParam("pages", "tinygpt.ui.views.lesson:lesson", message="lesson.bad_pages"),
    AppParam("show", "tinygpt.ui.views.lesson:lesson", message="lesson.bad_controls"),
    AppParam("hide", "tinygpt.ui.views.lesson:lesson", message="lesson.bad_controls"),
    AppParam("class", "tinygpt.ui.classwork.student:_read_class", read_class_code, message="class.bad_code"),
    AppParam("s", "tinygpt.ui.classwork.short_links:open_short_link", read_link_code, message="short.unknown"),
    AppParam("me", "tinygpt.ui.classwork.student:_start_student", read_student, secret=True, message="mine.bad_token"),
    AppParam(
        "key",
        "tinygpt.ui.classwork.class_guard:teacher_credentials",
        read_teacher_key,
        secret=True,
        message="teacher.no_access",
    ),
    # a page not listed opens the builder on Attention
    AppParam("from", "tinygpt.ui.teacher.lesson_builder:_came_from"),
    # "post": the concept check's round at the end is open
    AppParam("check", "tinygpt.ui.classwork.concept_check_view:section"),
)

#: {name: row} of every app-wide parameter.
APP_PARAMS: dict[str, AppParam] = {row.name: row for row in _ROWS}
