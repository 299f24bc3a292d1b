"""The glossary: the app's terms, each in one short phrase (the sidebar's "Words" on every page)."""

STRINGS = {
    "glossary.open": "Words used here",
    "glossary.intro": "Each term in one phrase; the pages say more where they use it.",
    "glossary.alpha": "**α (attention weight)**: how much of its attention a position puts on another character, from 0 to 1; one position's weights add up to 1.",
    "glossary.mask": "**Causal mask**: hides the characters after a position, so it can only look back (never at the character it must predict).",
    "glossary.head": "**Head**: one of several attentions in a layer, side by side; each has its own α and may look at a different place.",
    "glossary.layer": "**Layer**: one attention step plus a small network; the model stacks them, counted from 1.",
    "glossary.residual": "**Residual stream**: the numbers that stand for each position, passed from layer to layer; each layer adds its result to them.",
    "glossary.layernorm": "**LayerNorm**: rescales each position's numbers to a common size before a layer uses them.",
    "glossary.logit": "**Logit**: the model's raw score for each possible next character; softmax turns the scores into probabilities.",
    "glossary.softmax": "**Softmax**: turns scores into weights between 0 and 1 that add up to 1; a higher score gets a larger share.",
    "glossary.tau": "**Temperature τ**: divides the scores before softmax; small τ picks the top one, large τ spreads evenly.",
    "glossary.shapes": "**Tensor shapes** such as (T, D): a table of numbers with T rows (one per position of the text) and D columns (d_model numbers per character).",
}
