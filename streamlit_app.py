"""Tiny GPT Explorer — entry point: page config, language switch, navigation. Nothing else."""

import streamlit as st

from tinygpt.ui.i18n import language_switch, tr

st.set_page_config(page_title="Tiny GPT Explorer", page_icon="🔎", layout="wide")
language_switch()
pages = [
    st.Page("pages/train.py", title=tr("nav.train"), icon="🏋️", url_path="train", default=True),
    st.Page("pages/predict.py", title=tr("nav.predict"), icon="🔮", url_path="predict"),
    st.Page("pages/attention.py", title=tr("nav.attention"), icon="🔍", url_path="attention"),
]
st.navigation(pages).run()
