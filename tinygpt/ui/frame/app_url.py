"""The app's own address, as the browser sees it: what every link the app writes begins with."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

import streamlit as st


def base_url(page_paths: Iterable[str]) -> str:
    """The app's address as the browser sees it (``st.context.url``, else the Host header), ending in "/".

    A page's own path (one of ``page_paths``) at its end is dropped.
    """
    parts = urlsplit(st.context.url or "")
    scheme, netloc, path = parts.scheme or "http", parts.netloc, parts.path
    if not netloc:
        netloc = (st.context.headers or {}).get("Host") or "localhost:8501"
    segments = [s for s in path.split("/") if s]
    if segments and segments[-1] in set(page_paths):
        segments.pop()
    return f"{scheme}://{netloc}/" + "".join(f"{s}/" for s in segments)
