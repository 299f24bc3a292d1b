"""The glossary in the sidebar of every page: the app's terms (因果掩码 / causal mask, 头 / head, 残差流 /
residual stream, LayerNorm, logit, α, tensor shapes …), each in one short phrase, a tap away
wherever a page first uses one."""

from __future__ import annotations

import streamlit as st

from tinygpt.ui.frame.language import tr

#: The terms, in the order a student meets them (the keys ``glossary.<term>``).
TERMS = (
    "alpha",
    "mask",
    "head",
    "layer",
    "softmax",
    "tau",
    "logit",
    "residual",
    "layernorm",
    "shapes",
    "qkv",
    "d_model",
    "d_head",
    "token",
    "loss",
    "epoch",
)


def glossary() -> None:
    """A popover in the sidebar, "Words used here", listing :data:`TERMS`."""
    with st.sidebar.popover(tr("glossary.open"), icon=":material/menu_book:", key="glossary", width="stretch"):
        st.caption(tr("glossary.intro"))
        st.markdown("\n\n".join(tr(f"glossary.{term}") for term in TERMS))  # a paragraph each
