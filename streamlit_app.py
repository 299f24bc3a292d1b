"""Tiny GPT Explorer — entry point: page config, default-model warm-up, language switch, navigation."""

import streamlit as st

from tinygpt.ui.i18n import language_switch, tr
from tinygpt.ui.models import start_default_model

st.set_page_config(page_title="Tiny GPT Explorer", page_icon=":material/grid_on:", layout="wide")
start_default_model()  # trains the default model in a background thread, once per process
language_switch()
pages = [
    st.Page("app_pages/train.py", title=tr("nav.train"), icon=":material/model_training:", default=True),
    st.Page("app_pages/predict.py", title=tr("nav.predict"), icon=":material/keyboard_tab:", url_path="predict"),
    st.Page("app_pages/attention.py", title=tr("nav.attention"), icon=":material/grid_on:", url_path="attention"),
    st.Page("app_pages/theory.py", title=tr("nav.theory"), icon=":material/functions:", url_path="theory"),
]
st.navigation(pages).run()
