"""The app's style sheet and the one script every page carries (Streamlit-free text; torch-free,
so the entry script draws it before anything heavy is imported)."""

#: The colour of a changed prediction, as the charts draw it (``tinygpt.charts.CHANGED_COLOR``).
CHANGED_COLOR = "#e69f00"

#: A display formula wider than a phone scrolls sideways (and is drawn a little smaller there)
#: instead of being cut off at the screen's edge; a static table (``tables.table_html``) looks
#: like Streamlit's own, aligns its numbers on the right, keeps each cell on one line and scrolls
#: inside its box (sideways when wider than the screen, down under a header that stays in view);
#: a highlighted row is a light tint of ``charts.CHANGED_COLOR``; a chart wider than the screen
#: scrolls inside its own box, not the whole page; a Theory section scrolled to stops below the
#: phone's header.
NARROW_SCREEN_CSS = """
.katex-display { overflow-x: auto; overflow-y: hidden; }
.tg-table { overflow: auto; max-width: 100%; border: 1px solid rgba(49, 51, 63, 0.1); border-radius: 0.5rem; }
.tg-table table { width: 100%; border-collapse: separate; border-spacing: 0; font-size: 0.875rem; color: #262730; }
.tg-table th, .tg-table td { padding: 0.25rem 0.6rem; border-bottom: 1px solid rgba(49, 51, 63, 0.1);
  white-space: nowrap; text-align: left; }
.tg-table thead th { position: sticky; top: 0; z-index: 1; background: #ffffff; color: rgba(49, 51, 63, 0.6);
  font-weight: 400; }
.tg-table tbody th { font-weight: 400; color: rgba(49, 51, 63, 0.6); }
.tg-table tbody tr:last-child > * { border-bottom: none; }
.tg-table .n { text-align: right; font-variant-numeric: tabular-nums; }
.tg-table tr.hl > * { background: #fbe3b3; }
[data-testid="stVegaLiteChart"] { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
#theory-sections, #attn-parts, [id^="concept-"] { scroll-margin-top: 4rem; }
.tg-scroll-hint { display: none; margin: 0; font-size: 0.8rem; color: #4a4d5a; }
@media (max-width: 640px) { .katex-display { font-size: 0.85em; } .tg-scroll-hint { display: block; } }
"""

#: The strip under the switches (``tinygpt.ui.attention.effect``): a column per position, its rows
#: of one height so the legend lines up, wrapping to the next line on a narrow screen; a changed
#: column is tinted and outlined (and marked ▲ in its text). While "More controls" is open, the
#: count and the strip stay in view at the top of the screen as the student scrolls through them.
#: On a phone the page's top margin and title are smaller, so the switches and their effect fit
#: the first screen.
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
.st-key-attn_whatif:has(.st-key-attn_more details[open]) [data-testid="stLayoutWrapper"]:has(> .st-key-effect_count) {{
  position: sticky; top: 3.75rem; z-index: 3; background: #ffffff; box-shadow: 0 6px 6px -6px rgba(0,0,0,.25); }}
@media (max-width: 640px) {{
  [data-testid="stMainBlockContainer"] {{ padding-top: 3.5rem; }}
  [data-testid="stHeading"] h1 {{ font-size: 1.7rem; }}
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

#: Everything above, as one ``st.html`` element at the top of every page.
STYLE_SHEET = f"<style>{NARROW_SCREEN_CSS}{EFFECT_CSS}</style>{REPLACE_HISTORY_JS}"
