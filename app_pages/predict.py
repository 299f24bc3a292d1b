"""Predict page: next-character distribution at every position and a greedy continuation."""

import pandas as pd
import streamlit as st

from tinygpt.charts import probability_bars
from tinygpt.generate import MAX_NEW_CHARS, crop_context, generate, next_char_probs
from tinygpt.ui.common import model_banner, show_error
from tinygpt.ui.i18n import tr
from tinygpt.vocab import UnknownCharError

st.title(tr("predict.title"))
st.markdown(tr("predict.intro"))
tm = model_banner()
max_len = tm.gpt_cfg.max_len

prefix = st.text_input(tr("predict.prefix"), tm.text[: min(len(tm.text), max_len)], key="predict_prefix")
n_new = st.slider(tr("predict.n_new"), 0, MAX_NEW_CHARS, 3, key="predict_n_new")

if not prefix.strip():
    st.warning(tr("err.empty_text"))
    st.stop()
try:
    shown, cropped = crop_context(prefix, max_len)
    if cropped:
        st.info(tr("predict.too_long", n=len(prefix), max_len=max_len))
    probs = next_char_probs(tm.model, tm.vocab, shown)  # (T, V)
    steps = generate(tm.model, tm.vocab, prefix, n_new, trained_len=tm.window)
except (UnknownCharError, ValueError) as exc:
    show_error(exc)
    st.stop()

st.subheader(tr("predict.per_position"))
targets = tm.text[1:] + tm.text[:1]
expected = {tm.text[: i + 1]: targets[i] for i in range(len(tm.text))}
table = pd.DataFrame(probs.numpy(), columns=list(tm.vocab.chars))
table.insert(0, tr("predict.col_context"), [shown[: i + 1] for i in range(len(shown))])
table[tr("predict.col_top")] = [tm.vocab.chars[int(i)] for i in probs.argmax(-1)]
table[tr("predict.col_expected")] = [expected.get(shown[: i + 1], "") for i in range(len(shown))]
st.dataframe(table, hide_index=True, width="stretch")
pos = st.slider(tr("predict.col_context"), 1, len(shown), len(shown)) if len(shown) > 1 else 1
st.altair_chart(
    probability_bars(probs[pos - 1], tm.vocab.chars, title=tr("predict.bars_title", context=shown[:pos]),
                     highlight=tm.vocab.chars[int(probs[pos - 1].argmax())], x_title=tr("predict.axis_char"), y_title=tr("predict.axis_prob")),
    width="stretch",
)

if steps:
    st.subheader(tr("predict.generation"))
    st.markdown(tr("predict.result", prefix=prefix, generated="".join(s.chosen for s in steps)))
    for n, s in enumerate(steps, 1):
        line = tr("predict.step", n=n, context=s.context, chosen=s.chosen, p=float(s.probs[tm.vocab.chars.index(s.chosen)]))
        if s.cropped:
            line += " " + tr("predict.cropped", max_len=max_len)
        st.markdown(line)
        if s.beyond_training:
            st.caption(tr("predict.beyond", window=tm.window))
