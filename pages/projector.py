"""Projector page: a class's code and QR code, its open question in large type, and its answers once revealed."""

from tinygpt.ui.frame.page_list import PAGES
from tinygpt.ui.navigation import ensure_entry_script
from tinygpt.ui.projector.projector_view import page

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

page([p[3] for p in PAGES])
