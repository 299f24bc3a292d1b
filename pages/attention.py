"""Attention page: the steps of attention in one layer and head with the real numbers, and what-if switches."""

import math

import streamlit as st

from tinygpt.attention import STEPS, Switches, first_affected_step, future_mask
from tinygpt.charts import alpha_grid_spec, position_labels
from tinygpt.generate import crop_context
from tinygpt.ui import attention_view as view
from tinygpt.ui import experiments_view
from tinygpt.ui.common import keep_radio_choice, model_banner, show_error
from tinygpt.ui.i18n import tr
from tinygpt.ui.models import attention_trace
from tinygpt.vocab import UnknownCharError
from tinygpt.ui.navigation import ensure_entry_script

ensure_entry_script()  # a deep link on a fresh server ran this file alone: go through streamlit_app.py

st.title(tr("attn.title"))
st.markdown(tr("attn.intro"))
tm = model_banner()
cfg = tm.gpt_cfg
for message in view.load_url(cfg.n_layers, cfg.n_heads):
    st.warning(message)
view.set_defaults(tm.text[: cfg.max_len], math.sqrt(cfg.d_head))

c1, c2, c3 = st.columns([4, 1, 1])
text_in = c1.text_input(tr("attn.text"), help=tr("attn.text_help", max_len=cfg.max_len), key=view.K_TEXT)
layer = c2.selectbox(tr("attn.layer"), range(cfg.n_layers), key=view.K_LAYER)
head = c3.selectbox(tr("attn.head"), range(cfg.n_heads), key=view.K_HEAD)

with st.sidebar:
    st.subheader(tr("attn.switches"), help=tr("attn.switches_help"))
    mask_on = st.toggle(tr("attn.mask"), help=tr("attn.mask_help"), key=view.K_MASK)
    scale_labels = {"sqrt": tr("attn.scale_sqrt", value=math.sqrt(cfg.d_head)), "one": tr("attn.scale_one"),
                    "custom": tr("attn.scale_custom")}  # format_func must not read the session
    keep_radio_choice(view.K_SCALING)
    scaling = st.radio(tr("attn.scaling"), view.SCALINGS, format_func=scale_labels.get, key=view.K_SCALING)
    divisor = {"sqrt": None, "one": 1.0}.get(scaling)
    if scaling == "custom":
        divisor = st.number_input(tr("attn.scale_value"), view.MIN_DIVISOR, view.MAX_DIVISOR, key=view.K_DIVISOR)
    temperature = st.select_slider(tr("attn.temperature"), view.TEMPERATURES, format_func="{:g}".format,
                                   help=tr("attn.temperature_help"), key=view.K_TAU)
    head_labels = {h: tr("attn.panel_head", h=h) for h in range(cfg.n_heads)}
    keep_radio_choice(view.K_HEADS_OFF)  # the browser keeps a multiselect's choices by their labels too
    heads_off = st.multiselect(tr("attn.heads_off", layer=layer), range(cfg.n_heads), format_func=head_labels.get,
                               help=tr("attn.heads_off_help"), placeholder=tr("attn.heads_off_none"), key=view.K_HEADS_OFF)
    uniform_labels = {"none": tr("attn.uniform_none"), "head": tr("attn.uniform_head", head=head),
                      "layer": tr("attn.uniform_layer", layer=layer)}
    keep_radio_choice(view.K_UNIFORM)
    uniform = st.radio(tr("attn.uniform"), view.UNIFORM_MODES, format_func=uniform_labels.get,
                       help=tr("attn.uniform_help"), key=view.K_UNIFORM)
    st.button(tr("attn.reset"), on_click=view.reset_switches, key="attn_reset")

step_labels = {s.id: f"{s.number}. {tr(f'step.{s.id}.name')}" for s in STEPS}
step = view.step_nav(step_labels)
view.write_url(view.url_values(text_in, layer, head, step.id, mask_on, scaling,
                               st.session_state.get(view.K_DIVISOR, 1.0), temperature, heads_off, uniform))

if not text_in:
    st.warning(tr("err.empty_text"))
    st.stop()
text, cropped = crop_context(text_in, cfg.max_len)
if cropped:
    st.info(tr("attn.cropped", n=len(text_in), max_len=cfg.max_len))
try:
    base = attention_trace(tm, text, layer)
except UnknownCharError as exc:
    show_error(exc)
    st.stop()

labels = position_labels(text)
T = len(text)
step_box, checks_box = st.container(), st.container(border=True)
with st.container(border=True):
    edits = view.score_editor(base, layer, head, labels)
switches = Switches(causal_mask=mask_on, divisor=divisor, temperature=temperature, edits=edits,
                    uniform_heads=view.uniform_heads(uniform, head, cfg.n_heads), heads_off=tuple(sorted(heads_off)))
trace = view.what_if(base, switches)
own = view.cached_walk(tm, text)
causal = future_mask(T)  # (T, T)
future = causal if mask_on else None

with step_box:
    if not switches.is_default:
        st.caption(tr("attn.whatif_note", step=first_affected_step(base.switches, switches) + 1))
    view.show_step(trace, step, head, labels, cfg, future)

with checks_box:
    view.show_checks(tm, text, base, trace, head)

st.subheader(tr("attn.pred_header"))
view.show_prediction(tm, text, layer, switches)
experiments_view.show_experiments(tm, text, layer, switches, labels)

panel = min(160, max(72, 24 * T))  # pixels per small multiple
st.subheader(tr("attn.heads_header", layer=layer))
st.vega_lite_chart(alpha_grid_spec(
    trace.state["alpha"][0], [tr("attn.panel_head", h=h) for h in range(cfg.n_heads)], labels, labels,
    masked=future, row_title=tr("attn.axis_query"), col_title=tr("attn.axis_key"), masked_label=tr("attn.masked"),
    columns=view.grid_columns(cfg.n_heads, panel), panel_size=panel,
), width="content")
st.subheader(tr("attn.layers_header", head=head))
st.caption(tr("attn.layers_caption"))
st.vega_lite_chart(alpha_grid_spec(
    own.alphas[:, head], [tr("attn.panel_layer", l=k) for k in range(cfg.n_layers)], labels, labels,
    masked=causal, row_title=tr("attn.axis_query"),
    col_title=tr("attn.axis_key"), masked_label=tr("attn.masked"), columns=view.grid_columns(cfg.n_layers, panel),
    panel_size=panel,
), width="content")

view.show_snapshots(tm, layer, head)
