"""Attention page: the nine steps of one layer and head, with what-if switches."""

import math

import streamlit as st

from tinygpt.attention import STEP_IDS, STEPS, Switches, step_by_id, first_affected_step, row_sums, sdpa_difference
from tinygpt.charts import heatmap, matrix_frame, position_labels
from tinygpt.generate import crop_context
from tinygpt.ui.common import model_banner, show_error
from tinygpt.ui.i18n import tr
from tinygpt.ui.models import attention_trace
from tinygpt.vocab import UnknownCharError

st.title(tr("attn.title"))
st.markdown(tr("attn.intro"))
tm = model_banner()
cfg = tm.gpt_cfg

c1, c2, c3 = st.columns([3, 1, 1])
text = c1.text_input(tr("attn.text"), tm.text[: cfg.max_len], key="attn_text")
layer = c2.selectbox(tr("attn.layer"), range(cfg.n_layers), key="attn_layer")
head = c3.selectbox(tr("attn.head"), range(cfg.n_heads), key="attn_head")

with st.sidebar:
    st.subheader(tr("attn.switches"))
    mask_on = st.toggle(tr("attn.mask"), True, help=tr("attn.mask_help"), key="attn_mask")
    sqrt_d = math.sqrt(cfg.d_head)
    scale_labels = {"sqrt": tr("attn.scale_sqrt", value=sqrt_d), "one": tr("attn.scale_one"), "custom": tr("attn.scale_custom")}
    choice = st.radio(tr("attn.scaling"), list(scale_labels), format_func=scale_labels.get, key="attn_scaling")
    divisor = {"sqrt": None, "one": 1.0}.get(choice)
    if choice == "custom":
        divisor = st.number_input(tr("attn.scale_value"), min_value=0.01, max_value=1000.0, value=float(sqrt_d), key="attn_divisor")
    temperature = st.slider(tr("attn.temperature"), 0.05, 5.0, 1.0, 0.05, help=tr("attn.temperature_help"), key="attn_temperature")

if not text:
    st.warning(tr("err.empty_text"))
    st.stop()
text, cropped = crop_context(text, cfg.max_len)
if cropped:
    st.info(tr("attn.cropped", max_len=cfg.max_len))
try:
    base = attention_trace(tm, tm.uid, text, layer)
except UnknownCharError as exc:
    show_error(exc)
    st.stop()
switches = Switches(causal_mask=mask_on, scale=divisor, temperature=temperature)
trace = base.with_switches(switches)
if not switches.is_default:
    st.caption(tr("attn.whatif_note", step=first_affected_step(base.switches, switches) + 1))

labels = position_labels(text)
step_labels = {s.id: f"{s.number}. {tr(f'step.{s.id}.name')}" for s in STEPS}  # format_func must not read the session
step = step_by_id(st.radio(tr("attn.step"), STEP_IDS, format_func=step_labels.get, horizontal=True, key="attn_step"))
st.latex(step.formula)
T, D, h = len(text), cfg.d_model, cfg.n_heads
concrete = {"(B, T, d_model)": f"(1, {T}, {D})", "(B, h, T, d_head)": f"(1, {h}, {T}, {cfg.d_head})", "(B, h, T, T)": f"(1, {h}, {T}, {T})"}
st.markdown(tr("attn.shape", symbolic=step.shape, concrete=concrete[step.shape]))

square = step.per_head and trace.state[step.outputs[0]].shape[-1] == T and step.id not in ("split_heads", "weighted_sum")
future = [[j > i for j in range(T)] for i in range(T)] if mask_on and step.id in ("mask", "softmax") else None
for k, name in enumerate(step.outputs):
    m = trace.step_tensor(step, head, k)
    cols = labels if square else [str(j) for j in range(m.shape[1])]
    title = f"{name}[head {head}]" if step.per_head else name
    left, right = st.columns([1, 1])
    left.markdown(f"**{tr('attn.table', name=title)}**")
    left.dataframe(matrix_frame(m, labels, cols).round(4), width="stretch")
    right.altair_chart(heatmap(
        m, labels, cols, kind="prob" if name == "alpha" else "signed", title=title, masked=future,
        row_title=tr("attn.axis_query") if square else tr("attn.axis_pos"),
        col_title=tr("attn.axis_key") if square else tr("attn.axis_dim"),
        value_title=tr("attn.value"), masked_label=tr("attn.masked"),
    ), width="content")

if step.id == "softmax":
    sums = row_sums(trace)[0, head]
    st.caption(tr("attn.check_rows", sums=", ".join(f"{v:.6f}" for v in sums.tolist())))
    if mask_on:
        alpha = trace.state["alpha"][0, head]
        worst = max((float(alpha[i, j]) for i in range(T) for j in range(i + 1, T)), default=0.0)
        st.caption(tr("attn.check_masked", value=worst))
if switches.is_default and step.id in ("weighted_sum", "merge_heads", "output_projection"):
    st.caption(tr("attn.check_sdpa", diff=sdpa_difference(trace)))
with st.expander(tr("attn.source")):
    st.code(step.source(), language="python")
