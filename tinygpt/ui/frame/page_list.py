"""The app's pages, listed once: the navigation, lesson links, share links and the teacher's links
read them here.

An entry is (file, i18n key of the title, icon, URL path). The sidebar draws ``:material/…:``
icons with the Material Symbols font served from Streamlit's own static files.
"""

from __future__ import annotations

#: The pages the navigation lists, in its order; the first page is the default one.
PAGES: tuple[tuple[str, str, str, str], ...] = (
    ("pages/train.py", "nav.train", ":material/model_training:", "train"),
    ("pages/predict.py", "nav.predict", ":material/keyboard_tab:", "predict"),
    ("pages/attention.py", "nav.attention", ":material/grid_on:", "attention"),
    ("pages/theory.py", "nav.theory", ":material/functions:", "theory"),
)

#: The teacher's page (lesson builder, a class's answers): reached by its URL, not listed in the navigation.
TEACHER_PAGE = ("pages/teacher.py", "nav.teacher", ":material/school:", "teacher")
#: The projector's page (a class's code, question and revealed answers): reached by its URL, not listed.
PROJECTOR_PAGE = ("pages/projector.py", "nav.projector", ":material/cast_for_education:", "projector")
#: The URL paths of those two pages.
TEACHER_PATH = TEACHER_PAGE[3]
PROJECTOR_PATH = PROJECTOR_PAGE[3]
#: Pages whose ``class=`` is the class shown, not the class a student answers in.
CLASS_VIEW_PATHS = (TEACHER_PATH, PROJECTOR_PATH)
#: The URL path of a lesson's start page (``tinygpt.ui.navigation``), which opens its first page.
LESSON_START = "lesson_start"
