"""Strings of the model choice, the model banner and links that carry a model — English."""

STRINGS: dict[str, str] = {
    "model.choice": "Model",
    "model.choice.textbook": "Textbook (你好世界)",
    "model.choice.context": "Context example",
    "model.choice.own": "Your model",
    "model.choice_help": "Context example (我爱你，你爱我。他爱她，她爱他。): the same character is followed by different ones depending on the one before it, so the model must attend. Textbook example (你好世界): every character has one successor, so attention does not matter. Your model: the last one you trained, loaded or opened from a link.",
    "model.banner.textbook": "Textbook example (text “{text}”).",
    "model.banner.context": "Context example (text “{text}”).",
    "model.banner.own": "Your model (text “{text}”).",
    "model.trained": "d_model {d_model}, {n_layers} layers × {n_heads} heads, trained {steps} steps (lr {lr}, seed {seed}, "
    "window {window}) to loss {loss:.2e}, {mask}",
    "model.mask_on": "causal mask on during training",
    "model.mask_off": "causal mask OFF during training (each position could see the character it predicts)",
    "model.own_missing": "The link asks for “your model”, but this session has none yet (train one or load a file on the "
    "Train page): showing the textbook example.",
    "model.loading_example": "Preparing the {name} (a few seconds, once)…",
    "model.offer_context": "Try the context example",
    "link.button": "Link for my class",
    "link.intro": "This link opens this page with the same model and the same view. Training is deterministic, so "
    "everyone who opens it gets exactly this model.",
    "link.note_example": "The link names the {name}: it opens at once.",
    "link.note_own": "The link carries the training settings of your model (text “{text}”): the server trains it once "
    "(or takes it from its shelf) and everyone gets the same weights.",
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
    "accepted.link_version": "a link of version {version} (train={version};…)",
    "accepted.link_field": "one of the settings {fields}",
    "accepted.link_text": "key=value settings separated by “;”, ending with text= and at least one character",
    "accepted.integer": "an integer",
    "accepted.number": "a number",
    "accepted.bool01": "1 (on) or 0 (off)",
    "accepted.edits": "head:i:j:value entries separated by commas, head from 0 to {last}, |value| at most {limit}",
    "model.relies": "Relies on attention: uniform attention in every layer changes {k} of its {n} training predictions.",
    "model.relies_none_text": "Does not need attention: uniform attention in every layer changes none of its {n} training predictions (each character of its text has one successor).",
    "model.relies_none_window": "Does not need attention: uniform attention in every layer changes none of its {n} training predictions (one training window of {window} characters: the position alone tells the next character; a window of {suggest} would make attention matter).",
}
