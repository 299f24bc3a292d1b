"""Teacher page: make a lesson (short link and QR code) and, with the class's key, watch its answers live."""

from tinygpt.ui.frame.language import tr
from tinygpt.ui.frame.page_list import PAGES
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.teacher.teacher_view import page

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

page([p[3] for p in PAGES], {p[3]: tr(p[1]) for p in PAGES})
