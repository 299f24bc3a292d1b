"""What the Train form's settings make, under the form: every refused value with its own message
(``tinygpt.ui.train.train_form``: in the student's language, naming the value and the accepted
range; Train is then disabled), else the model's size, the training pairs and the loss no model
can go below; then the server's limits."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tinygpt.config import (
    MAX_EPOCHS,
    MAX_PARAMETERS,
    MAX_TEXT_LEN,
    MAX_TOKENS_PER_STEP,
    ConfigError,
    GPTConfig,
    TrainConfig,
)
from tinygpt.limits import sequences_and_tokens_per_epoch
from tinygpt.ui.frame.language import error_text, tr
from tinygpt.ui.frame.tables import show_table
from tinygpt.ui.train.train_form import FORM_FIELDS, check_form
from tinygpt.vocab import causal_loss_floor, pair_texts

#: The training pairs the table shows at most.
MAX_PAIRS_SHOWN = 8


def check_settings(text: str, values: dict[str, object]) -> tuple[tuple[GPTConfig, TrainConfig] | None, list[str]]:
    """The form's configs (None when a value is refused) and the refusals' messages, drawn as errors.

    ``values``: the form's values by key (``tinygpt.ui.train.train_settings.typed_values``)."""
    configs, refused = check_form(text, {name: values[key] for key, name in FORM_FIELDS.items()})
    messages = [error_text(exc) if isinstance(exc, ConfigError) else tr("err.empty_text") for exc in refused]
    for message in messages:
        st.error(message)
    return configs, messages


def draw_preview(text: str, configs: tuple[GPTConfig, TrainConfig]) -> None:
    """The model's parameters and tokens per epoch, the first training pairs, the loss floor."""
    gpt_cfg, train_cfg = configs
    window = train_cfg.window_for(len(text), gpt_cfg.max_len)
    tokens = sequences_and_tokens_per_epoch(text, window)[1]
    st.caption(tr("train.params", n=gpt_cfg.n_parameters(), d_head=gpt_cfg.d_head, tokens=tokens))
    inputs, targets = pair_texts(text, window)
    shown_part = tr("train.pairs_shown", shown=MAX_PAIRS_SHOWN) if len(inputs) > MAX_PAIRS_SHOWN else ""
    st.markdown(tr("train.pairs", n=len(inputs), shown_part=shown_part))
    show_table(
        pd.DataFrame(
            {tr("train.col.input"): inputs[:MAX_PAIRS_SHOWN], tr("train.col.target"): targets[:MAX_PAIRS_SHOWN]}
        ),
        hide_index=True,
        max_height=400,
        key="train_pairs_table",
    )
    floor = causal_loss_floor(text, window)
    if floor > 0 and train_cfg.causal_mask:
        st.info(tr("train.loss_floor", floor=floor), icon=":material/info:")


def draw_limits() -> None:
    """The server's limits: parameters, epochs, text length, tokens per step."""
    st.caption(
        tr(
            "train.limits",
            params=f"{MAX_PARAMETERS:,}",
            epochs=MAX_EPOCHS,
            text=MAX_TEXT_LEN,
            tokens=MAX_TOKENS_PER_STEP,
        )
    )
