"""Strings of the model choice, the model banner and links that carry a model — English."""

STRINGS: dict[str, str] = {
    "model.choice": "Model",
    "model.choice.textbook": "Textbook (“你好世界”)",
    "model.choice.context": "Context example",
    "model.choice.own": "Your model",
    "model.choice.link": "The link's model",
    "model.choice.teacher": "Your teacher's model",
    "model.choice_help": "Context example (“我爱你，你爱我。他爱她，她爱他。”): the same character is followed by different ones depending on the one before it, so the model must attend. Textbook example (“你好世界”): every character has one successor, so attention does not matter. Your model: the last one you trained, loaded or opened from a link.",
    "model.banner.textbook": "Textbook example (text “{text}”). {size}",
    "model.banner.context": "Context example (text “{text}”). {size}",
    "model.banner.own": "Your model (text “{text}”). {size}",
    "model.banner.link": "The link's model (text “{text}”). {size}",
    "model.banner.teacher": "Your teacher's model (text “{text}”). {size}",
    "model.trained": "d_model {d_model}, {n_layers} layers × {n_heads} heads, trained {steps} steps (lr {lr}, seed {seed}, "
    "window {window}) to loss {loss:.2e}, {mask}",
    "model.mask_on": "causal mask on during training",
    "model.mask_off": "causal mask OFF during training (each position could see the character it predicts)",
    "model.own_missing": "The link asks for “your model”, but this session has none yet (train one or load a file on the "
    "Train page): showing the textbook example.",
    "model.loading_example": "Preparing the {name} (a few seconds, once)…",
    "model.offer_context": "Try the context example",
    "link.button": "Link for my class",
    "link.intro": "This link opens this page with the same model and the same view. The model is kept in this server's "
    "class store, so everyone who opens the link on this server (or on a server sharing its store) gets exactly this model.",
    "link.intro_no_store": "This link opens this page with the same settings and the same view. This server cannot reach "
    "its class store now, so the model is not kept there: another computer may train these settings to slightly "
    "different weights (processors round differently). Make the link on the class's server.",
    "link.note_example": "The link names the {name}: it opens at once.",
    "link.note_own": "The link carries the training settings of your model (text “{text}”): the server trains it once "
    "(or takes it from its shelf) and everyone on this server, or on one sharing its class store, gets the same weights.",
    "link.no_link_file": "Your model was loaded from a file: training cannot be shown to rebuild its weights, so there "
    "is no link for it. Share the file (Train page, Download) or link an example.",
    "link.no_link_run": "Your model's training ended at a non-finite loss: training it again does not end at these "
    "weights, so there is no link for it. Train it with a smaller learning rate, or link an example.",
    "link.bad": "The link's training settings are not accepted. {error}. Showing the textbook example instead.",
    "link.bad_model": "The link asks for model={value}, which is not a model of this app (accepted: {accepted}).",
    "link.busy": "Your own training is still running: stop it or let it end on the Train page, then open the link again.",
    "link.failed": "The link's model could not be trained ({reason}); showing the textbook example.",
    "link.training_header": "Preparing the model of the link",
    "link.training_model": "Training text “{text}”; the page appears as soon as the model is ready.",
    "link.waiting": "Waiting for a training slot: place {place} in line ({slots} models train at once).",
    "link.starting": "Starting…",
    "link.paused": "The run is paused at step {step} by the session that started it.",
    "link.running": "Step {step} of {epochs}, loss {loss}",
    "link.shared": "Another session asked for the same settings first: this is that one run, shared.",
    "link.bad_edits": "The link's score edits were left out. {error}. The scores are the model's own.",
    "link.edit_outside": "The score edit S[{i}, {j}] is outside this text ({T} positions) and is left out.",
    "accepted.link_version": "a link of version {version} ({param}={version};…)",
    "accepted.link_repeated": "each setting once: the link gives {name} {n} times, so which value it means cannot be told",
    "accepted.indivisible_default": "a d_model divisible by n_heads = {n_heads}: the link sets no n_heads, so it is the default {n_heads}, and d_model = {d_model} cannot be split into {n_heads} equal parts. Give a d_model divisible by {n_heads}, or add an n_heads that divides {d_model} (e.g. {examples})",
    "accepted.divisor_default": "a divisor of d_model = {d_model}: the link sets no d_model, so it is the default {d_model}. Give an n_heads that divides {d_model} (e.g. {examples}), or add a d_model divisible by it",
    "accepted.link_field": "one of the settings {fields}",
    "accepted.link_text": "key=value settings separated by “;”, ending with text= and at least one character",
    "accepted.integer": "an integer",
    "accepted.number": "a number",
    "accepted.bool01": "1 (on) or 0 (off)",
    "accepted.edits": "head:i:j:value entries separated by commas: head from 0 to {last}; i (the row, a query) and j (the column, a key) positions of the text, counted from 0, with j at most i; |value| at most {limit}",
    "model.relies": "Relies on attention: uniform attention in all {L} layers changes {k} of the {n} predictions over its training text.",
    "model.relies_none_text": "Needs no attention: uniform attention in all {L} layers changes none of the {n} predictions over its training text.",
    "model.relies_none_window": "Needs no attention: uniform attention in all {L} layers changes none of the {n} predictions over its training text (one training window of {window} characters: the position alone tells the next character; a window of {suggest} would make attention matter).",
    "model.size": "Model: d_model = {d_model} ({d_model} numbers per character), {n_layers} layers × {n_heads} heads.",
}
