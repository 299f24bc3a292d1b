"""The student's class kept in step with the store: a class seen closed is asked again (its teacher
may have reopened it, and answers given then belong to the class), and an answer given in two tabs
ends as the one the store kept, said to the student."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from tinygpt.classroom.store import Store, StoreError
from tinygpt.config import ConfigError
from tinygpt.ui.frame.class_store import class_store, say
from tinygpt.ui.frame.language import md_escape, tr
from tinygpt.ui.frame.student_state import class_session

#: Seconds between two looks at a class seen closed (on a page's run; an answer looks at once).
RECHECK_S = 5.0


def recheck_class(force: bool = False) -> None:
    """A class this session saw closed: ask the store again (at most every :data:`RECHECK_S`
    seconds unless ``force``); reopened, the session's answers go to it again and the note goes."""
    cs = class_session()
    if cs.status != "closed" or not cs.code:
        return
    if not force and time.monotonic() - cs.checked_at < RECHECK_S:
        return
    cs.checked_at = time.monotonic()
    try:
        info = class_store().get_class(cs.code)
    except (StoreError, ConfigError):  # said where an answer is sent
        return
    if info is not None and info.is_open:
        cs.status, cs.note = "open", None


def first_answer_kept(store: Store, entry: Any, student: str) -> Any:
    """``entry`` (an answer the store did not take: this student answered the question before,
    in another tab) as the store kept it; when the kept answer differs, the student is told which."""
    kept = [
        a
        for a in store.answers(class_code=entry.class_code, student=student)
        if a.question_id == entry.question_id and a.class_code == entry.class_code
    ]
    if not kept or kept[0].answer == entry.answer:
        return entry
    first = kept[0]
    say(tr("class.other_tab", answer=md_escape(first.answer_text), question=md_escape(entry.question_text)))
    return replace(entry, answer=first.answer, answer_text=first.answer_text, right=first.right)
