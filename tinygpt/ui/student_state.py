"""The student's session keys and one answer as the session keeps it: what ``tinygpt.ui.student``
(the session and the store), ``tinygpt.ui.my_answers`` (the sidebar), ``tinygpt.ui.class_sync``
and ``tinygpt.ui.follow`` read and write."""

from __future__ import annotations

from dataclasses import dataclass

K_ME = "_class_me"  # the student's anonymous token
K_ANSWERS = "_class_answers"  # question id -> AnswerEntry, this student's answers (loaded and new)
K_CLASS = "_class_code"  # the class the session answers in (None: none)
K_STATUS = "_class_status"  # "open", "closed", "unknown" or None (not checked: the store was down)
K_CLASS_SEEN = "_class_seen"  # the class= value last read
K_NOTE = "_class_note"  # why answers do not go to a class (a bad code, an unknown or closed class)
K_DOWN = "_class_store_down"  # why the last attempt to send an answer failed (None: it did not)
K_RESUME = "_class_resume"  # (page and query it was made for, the resume link)
K_COOKIE = "_class_cookie"  # the token this session last put in the browser's cookie
K_PAGE = "_class_page"  # the URL path of the page shown (a resume link comes back to it)
K_NICKNAME = "class_nickname"  # the nickname input (drawn in the sidebar while in a class)
#: The browser's cookie holding the student's anonymous token (a reload brings the answers back).
COOKIE = "tinygpt_me"


@dataclass(frozen=True)
class AnswerEntry:
    """One answer of this student: what "my answers" lists and what is sent to the store."""

    question_id: str
    question_text: str
    answer: str  # choice ids, comma-separated
    answer_text: str
    right: bool
    at: float
    class_code: str
    record: dict | None = None  # the question as the store keeps it (None: loaded from the store)
    sent: bool = False
