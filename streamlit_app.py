"""Tiny GPT Explorer — entry point: page config, default-model warm-up, language switch, navigation.

``streamlit run streamlit_app.py`` reads this file twice over. To start the server it imports it
as a module (``__name__ == "streamlit_app"``) and serves the :class:`streamlit.App` it defines,
whose lifespan imports torch and the app's modules in the background while the first browser
loads (:mod:`tinygpt.ui.frame.server`). For every visit and rerun it runs it as the app's script
(``__name__ == "__main__"``): that work is in :func:`tinygpt.ui.navigation.run_app`, which every
page also calls when Streamlit ran it without this script (the legacy ``pages/`` mode of a fresh
server's first deep link).
"""

import streamlit as st

if __name__ == "__main__":
    from tinygpt.ui.navigation import run_app

    run_app()
else:
    from tinygpt.ui.frame.server import lifespan

    app = st.App("streamlit_app.py", lifespan=lifespan)
