"""The app's style sheet and the one script every page carries (Streamlit-free text; torch-free,
so the entry script draws it before anything heavy is imported)."""

import json
from string import Template

#: The colour of a changed prediction, as the charts draw it (``tinygpt.explanations.charts.CHANGED_COLOR``).
CHANGED_COLOR = "#e69f00"
#: Grey text (captions, table headers) that reads on white (6.4:1), on the sidebar's grey (5.7:1)
#: and on a highlighted row (5.1:1); Streamlit's own caption grey is 4.1:1, under WCAG's 4.5:1.
MUTED_TEXT = "#5c5f6a"
#: A switch's track while it is off: 3.4:1 against white (WCAG's 3:1 for a control's parts), where
#: Streamlit's own pale grey (1.5:1) made "off" hard to tell from nothing drawn.
SWITCH_OFF = "#8a8d96"
#: Room above a chart on a phone for its toolbar, beyond the 1rem gap between elements.
CHART_TOOLBAR_ROOM = "1.75rem"
#: The page's ``lang`` attribute for each language of ``tinygpt.i18n.LANGUAGES`` (BCP 47), so
#: screen readers pronounce the text and browsers pick fonts and line breaks for it.
HTML_LANG = {"zh": "zh-CN", "en": "en"}

#: A display formula wider than a phone scrolls sideways (and is drawn a little smaller there)
#: instead of being cut off at the screen's edge; a static table (``tables.table_html``) looks
#: like Streamlit's own, aligns its numbers on the right, keeps each cell on one line and scrolls
#: inside its box (sideways when wider than the screen, down under a header that stays in view);
#: a highlighted row is a light tint of ``charts.CHANGED_COLOR``; a chart wider than the screen
#: scrolls inside its own box, not the whole page; a Theory section scrolled to stops below the
#: phone's header. On a phone a segmented control's buttons, which wrap onto several rows there,
#: are apart, each with its whole border and round corners (joined, the ends of a row lost a
#: border: Streamlit overlaps neighbours by a pixel and rounds only the first and last). A chart
#: on a phone is drawn a little lower, so that its toolbar (a tap shows it, 44 px tall above the
#: chart's top) lies in that room and the gap between elements, not over the last row of a table
#: just above it. Streamlit's English "Press Enter to apply" under a text box is not shown: every page
#: is in the user's language, and Enter (or leaving the box) applies as the app's texts say. A page
#: link in the page wraps onto a second line rather than ending in "…" (cut mid-character on a phone).
#: "My answers" is on the page once: the sidebar's copy is hidden while the page shows its own
#: beside an exercise's score. A help button (``tinygpt.ui.frame.help``) is a 44 × 44 px tap target that
#: takes no more room than its icon (negative margins), so a switch's line keeps its height and two
#: switches with their help still fit a phone's line; the popover's chevron is not drawn beside it.
NARROW_SCREEN_CSS = f"""
.katex-display {{ overflow-x: auto; overflow-y: hidden; }}
[data-testid="InputInstructions"] {{ display: none; }}
.katex-display:focus-visible {{ outline: 2px solid #1f4e9c; outline-offset: 2px; }}
.stApp [data-testid="stCaptionContainer"] {{ color: {MUTED_TEXT}; opacity: 1; }}
/* a disabled control's label (τ while decoding greedily): muted as a caption, still readable */
.stApp [data-testid="stElementContainer"]:has(input:disabled) [data-testid="stWidgetLabel"],
.stApp [data-testid="stElementContainer"]:has(input:disabled) [data-testid="stWidgetLabel"] :is(p, span, div)
  {{ color: {MUTED_TEXT}; }}
.tg-table {{ overflow: auto; max-width: 100%; border: 1px solid rgba(49, 51, 63, 0.1); border-radius: 0.5rem; }}
.tg-table table {{ width: 100%; border-collapse: separate; border-spacing: 0; font-size: 0.875rem; color: #262730; }}
.tg-table th, .tg-table td {{ padding: 0.25rem 0.6rem; border-bottom: 1px solid rgba(49, 51, 63, 0.1);
  white-space: nowrap; text-align: left; }}
.tg-table thead th {{ position: sticky; top: 0; z-index: 1; background: #ffffff; color: {MUTED_TEXT};
  font-weight: 400; }}
.tg-table tbody th {{ font-weight: 400; color: {MUTED_TEXT}; }}
.tg-table tbody tr:last-child > * {{ border-bottom: none; }}
.tg-table .n {{ text-align: right; font-variant-numeric: tabular-nums; }}
.tg-table tr.hl > * {{ background: #fbe3b3; }}
[data-testid="stVegaLiteChart"] {{ max-width: 100%; overflow-x: auto; overflow-y: hidden; }}
#theory-sections, #attn-parts, #attn-whole, [id^="concept-"] {{ scroll-margin-top: 4rem; }}
[data-testid="stMain"] [data-testid="stPageLink"] a span:has(> [data-testid="stMarkdownContainer"]),
[data-testid="stMain"] [data-testid="stPageLink"] a [data-testid="stMarkdownContainer"],
[data-testid="stMain"] [data-testid="stPageLink"] a p {{ white-space: normal; overflow: visible; text-overflow: clip; }}
[data-testid="stMain"] [data-testid="stPageLink"] a {{ height: auto; }}
.stApp:has([data-testid="stMain"] :is(.st-key-mine_here, .st-key-mine_vote)) .st-key-mine_sidebar {{ display: none; }}
[class*="st-key-help_"] button {{ min-width: 44px; min-height: 44px; margin: -10px -12px; padding: 0;
  justify-content: center; }}
[class*="st-key-help_"] button div[aria-hidden="true"] {{ display: none; }}
label:has(> span > input[role="switch"]:not(:checked)) > div:nth-child(2) {{ background-color: {SWITCH_OFF}; }}
@media (max-width: 640px) {{ .katex-display {{ font-size: 0.85em; }} }}
@media (max-width: 640px) {{
  [role="radiogroup"]:has(> button[data-variant="segmented_control"]) {{ column-gap: 4px; }}
  button[data-variant="segmented_control"] {{ margin-right: 0 !important; border-radius: 0.5rem !important; }}
  button[data-variant="segmented_control"][aria-checked="false"] {{ border-color: rgba(38, 39, 48, 0.2) !important; }}
  [data-testid="stElementContainer"]:has([data-testid="stVegaLiteChart"]) {{ margin-top: {CHART_TOOLBAR_ROOM}; }}
}}
"""

#: The strip under the switches (``tinygpt.ui.attention.effect``): a column per position, its rows
#: of one height so the legend lines up, wrapping to the next line on a narrow screen; a changed
#: column is tinted and outlined (and marked ▲ in its text). "More controls" stands above the count
#: and the strip; while it is open and pushes them below the screen, they stay in view at the
#: bottom of a desktop's screen, and take their own place (covering nothing) once scrolled to. A
#: phone's screen is too short for that (the open panel's controls would be under them, and the
#: closed panel's line would push the first reason out of the first screen): there "More controls"
#: comes after the reasons and nothing sticks.
#: On a phone the page's top margin and title are smaller and the switches' rows closer, so the
#: switches, where they act and their effect fit the first screen.
EFFECT_CSS = f"""
.tg-strip {{ display: flex; flex-wrap: wrap; gap: 2px 3px; font-size: 1rem; }}
.tg-strip .col {{ display: flex; flex-direction: column; align-items: center; min-width: 1.7em;
  padding: 0 2px; border-radius: 4px; }}
.tg-strip .col > span {{ display: block; height: 1.4rem; line-height: 1.4rem; white-space: nowrap; }}
.tg-strip .legend {{ align-items: flex-start; color: #4a4d5a; font-size: 0.75rem; min-width: auto;
  padding-right: 4px; }}
.tg-strip .col.changed {{ background: {CHANGED_COLOR}33; outline: 1px solid {CHANGED_COLOR}; }}
.tg-strip .i {{ font-size: 0.7rem; color: #4a4d5a; }}
.tg-strip .c {{ font-weight: 600; }}
.tg-strip .m {{ font-size: 0.7rem; color: #8a5a00; }}
@media (min-width: 641px) {{
.st-key-attn_whatif:has(.st-key-attn_more details[open]) [data-testid="stLayoutWrapper"]:has(> .st-key-effect_count) {{
  position: sticky; bottom: 0; z-index: 3; background: #ffffff; box-shadow: 0 -6px 6px -6px rgba(0,0,0,.25); }}
}}
@media (max-width: 640px) {{
  .st-key-attn_whatif > .st-key-attn_more {{ order: 1; }}
  .st-key-attn_whatif {{ gap: 0.5rem; }}
  [data-testid="stMainBlockContainer"] {{ padding-top: 2.25rem; }}
  [data-testid="stHeading"] h1 {{ font-size: 1.7rem; padding-top: 0.25rem; }}
  .tg-strip {{ font-size: 0.85rem; gap: 2px 1px; }}
  .tg-strip .col {{ min-width: 1.1em; padding: 0 1px; }}
  .tg-strip .legend {{ font-size: 0.68rem; }}
}}
"""

# Replaces the browser's history entry instead of adding one when only the query string changes
# (Streamlit's frontend pushes an entry for every change of st.query_params): Back then leaves the
# page rather than undoing a switch. Installed once per browser tab.
REPLACE_HISTORY_JS = """<script>
(() => { const w = window.parent || window; if (w.__tgReplaceQuery) return; w.__tgReplaceQuery = true;
  const push = w.history.pushState.bind(w.history);
  w.history.pushState = (state, title, url) => {
    const next = new URL(url, w.location.href);
    return next.pathname === w.location.pathname ? w.history.replaceState(state, title, url) : push(state, title, url);
  };
})();
</script>"""

#: Keys that move the Attention page's steps when no control has the focus: a click on the button
#: keyed ``attn_prev`` / ``attn_next`` (Streamlit gives a keyed element the class ``st-key-<key>``).
STEP_KEYS = {"ArrowLeft": "attn_prev", "ArrowRight": "attn_next"}
#: Focused elements whose arrow keys are their own (they move a slider, a choice, a text cursor,
#: a scrolled box): the arrows then stay theirs.
OWN_ARROWS = (
    "input, textarea, select, [contenteditable], [role=slider], [role=radio], [role=radiogroup], [role=tab], "
    "[role=combobox], [role=listbox], [role=option], [role=spinbutton], [role=menu], [role=menuitem], "
    "[role=grid], .katex-display, .tg-table, [data-testid=stVegaLiteChart]"
)

# Run on every script run whose language or labels changed (the element's text changes with them):
# - the page's lang attribute follows the language shown;
# - a box that scrolls (a display formula or a chart wider than the page, a static table wider or
#   taller than its box) can be reached with the Tab key and scrolled with the arrow keys, and is
#   named for screen readers (a chart keeps its own name, its description); a box that scrolls
#   sideways says so under it (``tg-scrolls`` on its element, the text in CSS: ``scroll_css``);
#   re-checked in the frame after the page changes and when the window is resized, and only
#   what changed is written, so a redraw is not followed by a second wave of changes;
# - the file uploader's button is named in the page's language (its text is Streamlit's English);
# - ← / → move the Attention page's steps when no control has the focus (installed once per tab);
# - on a phone, choosing a page in the sidebar (its page menu or a lesson's links) closes the sidebar.
ACCESS_JS = Template("""<script>
(() => { const w = window.parent || window, d = w.document;
  if (d.documentElement.lang !== $lang) d.documentElement.lang = $lang;
  w.__tgScrollLabels = $scroll_labels; w.__tgUploadLabel = $upload_label;
  if (w.__tgAccess) { w.__tgAccess(); return; }
  // Any overflow makes a box reachable by keyboard (it does scroll); the "swipe sideways" line needs
  // more than SLACK px, since a formula's italic overhang of a pixel or two is nothing to look for.
  const SLACK = 8;
  const set = (el, attr, value) => { if (el.getAttribute(attr) !== value) el.setAttribute(attr, value); };
  const drop = (el, attr) => { if (el.hasAttribute(attr)) el.removeAttribute(attr); };
  const check = () => {
    for (const b of d.querySelectorAll('[data-testid=stFileUploaderDropzone] [data-testid=stBaseButton-secondary]')) {
      if (w.__tgUploadLabel) set(b, 'aria-label', w.__tgUploadLabel);  // its text is Streamlit's English
    }
    for (const [selector, name] of Object.entries(w.__tgScrollLabels)) {
      for (const box of d.querySelectorAll(selector)) {
        const style = w.getComputedStyle(box), scrolls = (overflow) => overflow === 'auto' || overflow === 'scroll';
        const over = scrolls(style.overflowX) ? box.scrollWidth - box.clientWidth : 0;
        const wide = over > 1, tall = scrolls(style.overflowY) && box.scrollHeight > box.clientHeight + 1;
        if (wide || tall) {
          set(box, 'tabindex', '0');
          if (name) { set(box, 'role', 'group'); set(box, 'aria-label', name); }
        } else {
          for (const attr of name ? ['tabindex', 'role', 'aria-label'] : ['tabindex']) drop(box, attr);
        }
        const holder = box.closest('[data-testid="stElementContainer"]') || box;
        if (over > SLACK && box.offsetParent !== null) set(holder, 'data-tg-scrolls', '');
        else drop(holder, 'data-tg-scrolls');
      }
    }
  };
  let frame = 0;
  w.__tgAccess = () => { if (!frame) frame = w.requestAnimationFrame(() => { frame = 0; check(); }); };
  new w.MutationObserver(w.__tgAccess).observe(d.body, {childList: true, subtree: true});
  w.addEventListener('resize', w.__tgAccess);
  w.__tgAccess();
  d.addEventListener('keydown', (e) => {
    const key = $step_keys[e.key];
    if (!key || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const focus = d.activeElement;
    if (focus && focus !== d.body && focus.closest($own_arrows)) return;
    const button = d.querySelector('.st-key-' + key + ' button');
    if (!button || button.disabled) return;
    e.preventDefault();
    button.click();
  });
  // The sidebar's page menu (Streamlit's, or a lesson's links) covers a phone's screen: close it
  // after a page is chosen.
  const MENU_LINKS = '[data-testid=stSidebar] [data-testid=stPageLink] a, [data-testid=stSidebarNav] a';
  d.addEventListener('click', (e) => {
    if (w.innerWidth > 736 || !e.target.closest(MENU_LINKS)) return;
    const close = d.querySelector('[data-testid=stSidebarCollapseButton] button');
    if (close) w.setTimeout(() => close.click(), 50);
  }, true);
})();
</script>""")


def scroll_css(hint: str) -> str:
    """The line above a box that scrolls sideways (its element marked ``data-tg-scrolls`` by
    :data:`ACCESS_JS`), ``hint`` in the user's language: a phone shows that more is to the side
    before the reader reaches the box (a formula, a chart or a table, whose rows may run far down)."""
    text = json.dumps(hint, ensure_ascii=False)
    line = f"content: {text}; display: block; font-size: 0.8rem; color: {MUTED_TEXT};"
    return f"[data-tg-scrolls]::before {{ {line} margin-bottom: 0.15rem; }}"


def uploader_css(button: str) -> str:
    """Streamlit's file uploader in the page's language: its button reads ``button`` (Streamlit
    writes "Upload" in English, with no parameter to change it), and its English size line is not
    shown (the page says the limit under the uploader in the user's language)."""
    text = json.dumps(button, ensure_ascii=False)
    box = '[data-testid="stFileUploaderDropzone"]'
    return (
        f'{box} [data-testid="stBaseButton-secondary"] [data-testid="stMarkdownContainer"] p {{ font-size: 0; }}'
        f'{box} [data-testid="stBaseButton-secondary"] [data-testid="stMarkdownContainer"] p::after '
        f"{{ content: {text}; font-size: 0.875rem; }}"
        f'{box} [data-testid="stFileUploaderDropzoneInstructions"] {{ display: none; }}'
    )


def style_sheet(lang: str, formula_label: str, table_label: str, scroll_hint: str, upload_button: str = "") -> str:
    """Everything above, as one ``st.html`` element at the top of every page: the style sheet, the
    history script and the access script for the language ``lang`` (a code of
    ``tinygpt.i18n.LANGUAGES``), naming a formula that scrolls ``formula_label`` and a table that
    scrolls ``table_label``; ``scroll_hint`` says under a box that it scrolls sideways;
    ``upload_button`` is the file uploader's button (:func:`uploader_css`; Streamlit's own when empty)."""
    labels = {".katex-display": formula_label, ".tg-table": table_label, "[data-testid=stVegaLiteChart]": None}
    script = ACCESS_JS.substitute(
        lang=json.dumps(HTML_LANG.get(lang, lang)),
        scroll_labels=json.dumps(labels, ensure_ascii=False),
        step_keys=json.dumps(STEP_KEYS),
        own_arrows=json.dumps(OWN_ARROWS),
        upload_label=json.dumps(upload_button, ensure_ascii=False),
    )
    upload = uploader_css(upload_button) if upload_button else ""
    css = NARROW_SCREEN_CSS + EFFECT_CSS + scroll_css(scroll_hint) + upload
    return f"<style>{css}</style>{REPLACE_HISTORY_JS}{script}"
