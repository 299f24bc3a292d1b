"""The heatmaps (α, steps 4–5) and the softmax row that follow the switches while they move.

A Streamlit slider tells the server its value when it is released; while the student drags τ the
page's widgets already show the value being dragged (the thumb's ``aria-valuetext``), and the
toggles and number inputs their state. :func:`live_bridge` puts a small script on the page (part
of the repository, nothing fetched) that reads those widgets (once per animation frame while the
student presses, drags or types, four times a second otherwise) and writes
what differs from the server's switches into hidden inputs; the live charts
(``tinygpt.explanations.charts.live``, ``live_row``) are bound to them and recompute their
numbers from the raw scores the server sent. The same script writes the dragged τ into the
softmax step's caption (:func:`tau_caption`), a line of text above the heatmap, not a chart: the
step's heatmap stays the step's first chart. On release the server reruns as for any widget, and
its data carries the same values. A widget that is not on the page (hidden by a lesson, "More
controls" closed) leaves its input empty: the charts use the server's value.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence

import streamlit as st

from tinygpt.attention import AttentionTrace
from tinygpt.config import GPTConfig
from tinygpt.explanations.charts.live import input_ids, live_alpha_spec, live_columns, live_scores_spec
from tinygpt.explanations.charts.live_row import live_row_spec
from tinygpt.ui.attention import state as s
from tinygpt.ui.frame.figure_view import heatmap_text
from tinygpt.ui.frame.language import tr

#: Read the widgets by their keys (Streamlit's ``st-key-<key>`` class) and keep the hidden inputs
#: in step; installed once per browser page, whatever the reruns.
_SCRIPT = """<script>
(() => {
  const page = %(page)s, ids = %(ids)s, keys = %(keys)s, maxEdit = %(max_edit)s, tauClass = %(tau_class)s;
  const minDiv = %(min_div)s, maxDiv = %(max_div)s;  // a divisor outside them is refused by the server
  window.tgLive = window.tgLive || {};
  if (window.tgLive[page]) return;
  const inputs = {};
  const input = (name) => {
    let el = document.getElementById(ids[name]);
    if (!el) {
      el = document.createElement("input");
      el.type = "hidden"; el.id = ids[name]; el.value = "";
      document.body.appendChild(el);
    }
    return el;
  };
  for (const name in ids) inputs[name] = input(name);
  // a widget's element, kept while it stays on the page (a query of the whole page is not free)
  const found = {};
  const find = (selector) => {
    const el = found[selector];
    if (el && el.isConnected) return el;
    return (found[selector] = document.querySelector(selector));
  };
  const box = (key) => key ? find(".st-key-" + key) : null;
  const checked = (key) => {
    const el = box(key)?.querySelector("input[type=checkbox]");
    return el ? (el.checked ? "1" : "0") : "";
  };
  const read = () => {
    const out = {live_tau: "", live_div: "", live_mask: checked(keys.mask), live_uniform: checked(keys.uniform),
                 live_edit: ""};
    const thumb = box(keys.tau)?.querySelector("input[type=range]");
    const tau = thumb ? parseFloat(thumb.getAttribute("aria-valuetext")) : NaN;
    if (tau > 0) out.live_tau = String(tau);
    const scaled = checked(keys.scaled);  // a toggle: √d or no scaling
    if (scaled) out.live_div = scaled === "1" ? "sqrt" : "1";
    const radios = Array.from(box(keys.scaling)?.querySelectorAll("input[type=radio]") || []);
    const scaling = radios.findIndex((r) => r.checked);
    if (scaling === 0) out.live_div = "sqrt";  // no radio on the page: -1, the toggle's (or the server's)
    else if (scaling === 1) out.live_div = "1";
    else if (scaling === 2) {
      const div = parseFloat(box(keys.divisor)?.querySelector("input")?.value);
      if (div >= minDiv && div <= maxDiv) out.live_div = String(div);
    }
    const editor = keys.edit && find("[class*='st-key-" + keys.edit + "_l']");
    const m = editor && editor.className.match(new RegExp(keys.edit + "_l(\\\\d+)_h(\\\\d+)_i(\\\\d+)_j(\\\\d+)"));
    const value = parseFloat(editor?.querySelector("input")?.value);
    if (m && Number.isFinite(value) && Math.abs(value) <= maxEdit) {
      out.live_edit = [m[1], m[2], m[3], m[4], value].join(",");
    }
    return out;
  };
  const sync = () => {
    const want = read();
    for (const name in inputs) {
      if (!inputs[name].isConnected) inputs[name] = input(name);
      if (inputs[name].value !== want[name]) {
        inputs[name].value = want[name];
        inputs[name].dispatchEvent(new Event("input"));
      }
    }
    showTau(want.live_tau);
  };
  // Read once per animation frame while a pointer or finger is down on the page and for AWAKE_MS
  // after a key, a click or a typed value; four times a second otherwise (the server may set a
  // widget: a reset, a link, the teacher's lead). A loop of every frame would keep the browser
  // drawing frames on the thread that draws the server's answer. Only the student's own events
  // count (isTrusted): the "input" events this script sends to the charts wake nothing.
  const AWAKE_MS = 150, IDLE_MS = 250;
  let awakeUntil = 0, frame = 0, pressed = false;
  const loop = () => {
    frame = 0;
    sync();
    if (pressed || performance.now() < awakeUntil) frame = requestAnimationFrame(loop);
  };
  const wake = (e) => {
    if (e && !e.isTrusted) return;
    awakeUntil = performance.now() + AWAKE_MS;
    if (!frame) frame = requestAnimationFrame(loop);
  };
  const listen = (types, handler) => {
    for (const type of types) document.addEventListener(type, handler, {capture: true, passive: true});
  };
  listen(["keydown", "keyup", "input", "change", "click"], wake);
  listen(["pointerdown", "touchstart"], (e) => { if (e.isTrusted) { pressed = true; wake(e); } });
  listen(["pointerup", "pointercancel", "touchend", "touchcancel"], (e) => { pressed = false; wake(e); });
  setInterval(() => { if (!frame) sync(); }, IDLE_MS);
  // the τ captions (tau_caption): their text node takes the slider's τ; with no slider, the server's stays
  const shown = document.getElementsByClassName(tauClass);
  const showTau = (tau) => {
    for (const el of shown) {
      const text = el.firstChild;  // the node the page's framework drew: changed in place, never replaced
      if (tau && text && text.nodeValue !== tau) text.nodeValue = tau;
    }
  };
  // The server's answer to an earlier value redraws a caption with that value while the slider has
  // moved on (keys pressed faster than the server answers): put the slider's τ back at once, not at
  // the next read. Only the captions are looked at; the charts keep the hidden inputs' values.
  new MutationObserver(() => { if (shown.length) showTau(read().live_tau); })
    .observe(document.body, {childList: true, subtree: true, characterData: true});
  window.tgLive[page] = {read, wake};
  wake();
})();
</script>"""


#: The Attention page's widgets the script reads.
ATTENTION_KEYS = {
    "tau": s.K_TAU,
    "mask": s.K_MASK,
    "uniform": s.K_UNIFORM,
    "scaling": s.K_SCALING,
    "divisor": s.K_DIVISOR,
    "edit": s.K_EDIT_VALUE,
}
#: Every widget the script can read (a page names the ones it has): ``scaled`` is a toggle of √d.
READABLE = (*ATTENTION_KEYS, "scaled")


def tau_class(page: str = "attn") -> str:
    """The class of the elements whose text the bridge script on ``page`` keeps at the slider's τ."""
    return f"tg-live-{page}-tau-text"


def bridge_script(page: str = "attn", keys: Mapping[str, str] = ATTENTION_KEYS) -> str:
    """The script of :func:`live_bridge` (HTML with one ``<script>``): it reads the widgets keyed
    ``keys`` (any of :data:`READABLE`) into ``page``'s hidden inputs."""
    return _SCRIPT % {
        "page": json.dumps(page),
        "ids": json.dumps(input_ids(page)),
        "keys": json.dumps({name: keys.get(name) for name in READABLE}),
        "max_edit": repr(s.MAX_EDIT),
        "min_div": repr(s.MIN_DIVISOR),
        "max_div": repr(s.MAX_DIVISOR),
        "tau_class": json.dumps(tau_class(page)),
    }


def live_bridge(page: str = "attn", keys: Mapping[str, str] = ATTENTION_KEYS) -> None:
    """Put :func:`bridge_script` on the page (every run; the browser installs it once per page)."""
    st.html(bridge_script(page, keys), unsafe_allow_javascript=True, width="content")


def _columns(trace: AttentionTrace, head: int, labels: Sequence[str], d_head: int) -> dict:
    """:func:`live_columns` of ``head`` of ``trace``: its raw scores S (edits applied) and its switches."""
    sw = trace.switches
    return live_columns(
        trace.state["S"][0, head],
        labels,
        temperature=sw.temperature,
        divisor=sw.divisor_for(d_head),
        causal_mask=sw.causal_mask,
        uniform=head in sw.uniform_heads,
        d_head=d_head,
        layer=trace.layer,
        head=head,
    )


def live_alpha(trace: AttentionTrace, head: int, labels: Sequence[str], cfg: GPTConfig, title: str) -> dict:
    """The live α heatmap's Vega-Lite dict for ``head`` of ``trace`` (its raw scores S, edits
    applied, and its switches as data) under ``title``, with the step heatmap's axis titles."""
    rows, cols, masked = tr("attn.axis_query"), tr("attn.axis_key"), tr("attn.masked")
    # the text says grey cells may be masked whatever the mask: the spec stays the same when it flips
    description = heatmap_text(title, len(labels), len(labels), rows, cols, "α", True)
    return live_alpha_spec(
        _columns(trace, head, labels, cfg.d_head),
        labels,
        description,
        title=title,
        row_title=rows,
        col_title=cols,
        masked_label=masked,
    )


#: The steps whose heatmap is drawn live, by the tensor they show.
LIVE_STEPS = {"S_scaled": "scale", "S_masked": "mask"}


def live_step(
    trace: AttentionTrace, head: int, labels: Sequence[str], cfg: GPTConfig, title: str, name: str
) -> dict | None:
    """The live heatmap's Vega-Lite dict of the tensor ``name`` of ``head`` of ``trace`` under
    ``title`` (α, step 4's S / divisor, step 5's masked scores), or None for a tensor that needs
    the model (drawn by the server)."""
    if name == "alpha":
        return live_alpha(trace, head, labels, cfg, title)
    if name not in LIVE_STEPS:
        return None
    rows, cols, value = tr("attn.axis_query"), tr("attn.axis_key"), tr("attn.value")
    description = heatmap_text(title, len(labels), len(labels), rows, cols, value, name == "S_masked")
    return live_scores_spec(
        _columns(trace, head, labels, cfg.d_head),
        labels,
        LIVE_STEPS[name],
        description,
        title=title,
        row_title=rows,
        col_title=cols,
        value_title=value,
        masked_label=tr("attn.masked"),
    )


class _Mark:
    """A format field that writes a placeholder whatever its spec: a text's parts around it."""

    def __format__(self, spec: str) -> str:
        return "\ue000"


def tau_caption(temperature: float, page: str = "attn") -> str:
    """The softmax step's "τ = …" caption (Markdown with one HTML span, for ``st.caption(...,
    unsafe_allow_html=True)``): ``temperature`` written as ``{:g}`` in a span of class
    :func:`tau_class`, whose text :func:`bridge_script` keeps at the slider's τ while it moves."""
    before, after = (html.escape(part, quote=False) for part in tr("attn.tau_now", tau=_Mark()).split("\ue000"))
    return f'{before}<span class="{tau_class(page)}">{temperature:g}</span>{after}'


def live_row(trace: AttentionTrace, head: int, labels: Sequence[str], d_head: int, i: int, j: int) -> dict:
    """Query row ``i``'s softmax arithmetic (S̃, e_k, α per key, key ``j`` bold; m and Σ_k e_k)
    for ``head`` (of ``d_head`` dimensions) of ``trace`` as a live text chart."""
    headers = (tr("attn.live_row_scaled"), tr("attn.live_row_exp"), tr("attn.live_row_alpha"))
    description = tr("attn.live_row_text")  # no value: the same spec for every picked cell
    return live_row_spec(
        _columns(trace, head, labels, d_head),
        labels,
        i,
        j,
        description,
        headers=headers,
        uniform_header=tr("attn.live_row_exp_uniform"),
        row_title=tr("attn.axis_key"),
    )
