"""Tiny GPT Explorer — entry point: page config, default-model warm-up, language switch, navigation.

The work is in :func:`tinygpt.ui.navigation.run_app`, which every page also calls when Streamlit ran
it without this script (the legacy ``pages/`` mode of a fresh server's first deep link).
"""

from tinygpt.ui.navigation import run_app

run_app()
