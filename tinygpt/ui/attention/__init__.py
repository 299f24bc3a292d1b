"""The Attention page's Streamlit side, one concern a module.

- :mod:`.table` — the page's table of state: each control's key, default, lesson label and URL row.
- :mod:`.state` — the defaults put in the session, the URL's rows beyond the table, and what happens
  when the model or the text changes (the switches return to the model's own; pickers are clamped).
- :mod:`.data` — the cached numbers: walks, traces, effects, head importance, logit lens.
- :mod:`.switches` — the switches a student flips, and "more controls".
- :mod:`.effect` — right under the switches: what they change at every position, and why.
- :mod:`.steps` — the nine steps of one layer and head: navigation, heatmap, table, formula.
- :mod:`.cell` — the arithmetic of one picked cell.
- :mod:`.sections` — below the steps: which heads matter, the logit lens, α grids, training.

``pages/attention.py`` lays these out; the numbers come from ``tinygpt.attention`` (the steps),
``tinygpt.explanations.explain`` (one walk over the blocks) and ``tinygpt.explanations.why`` (the reasons in words).
"""
