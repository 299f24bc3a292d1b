"""Strings of the lesson view (a teacher's link that shows only some pages and controls) — English."""

STRINGS: dict[str, str] = {
    "lesson.note": "**Lesson view:** your teacher's link shows only the pages and controls of today's lesson. To leave it, [open the full app]({url}) (a new tab).",
    "lesson.bad_pages": "The link names pages this app does not have: {names}. Accepted pages: {accepted}.",
    "lesson.not_in_lesson": "Today's lesson does not include the page “{page}”. Carry on with its first page, “{first}”:",
    "lesson.bad_controls": "Your teacher's link names controls this app does not have ({names}); the lesson shows the others.",
    "lesson.accepted_controls": "The control names a lesson link accepts (for the teacher)",
}
