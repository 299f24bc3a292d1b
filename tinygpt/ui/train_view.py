"""The Train page's helpers: the form's values of a loaded model, its run record, the choices' lists."""

from __future__ import annotations

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.jobs import JobStatus, RunRecord, greedy_continuation, settings_of
from tinygpt.record import ModelRecord


def options_with(options: list, value: object) -> list:
    """``options``, plus ``value`` in sorted place when the list lacks it (e.g. a loaded checkpoint's d_model 1024)."""
    return options if value in options else sorted([*options, value])


def form_values(tm: ModelRecord) -> dict[str, object]:
    """The Train form's widget values (session keys) that reproduce ``tm``'s settings."""
    return settings_values(tm.text, tm.gpt_cfg, tm.train_cfg)


def settings_values(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> dict[str, object]:
    """The Train form's widget values (session keys) for these settings (whole numbers as the text boxes hold them)."""
    g, c = gpt_cfg, train_cfg
    return {
        "train_text": text,
        "train_window": str(c.window or 0),
        "train_d_model": g.d_model,
        "train_n_heads": g.n_heads,
        "train_n_layers": g.n_layers,
        "train_d_ff": g.d_ff,
        "train_max_len": str(g.max_len),
        "train_norm": g.norm,
        "train_positions": g.positions,
        "train_lr": c.lr,
        "train_epochs": str(c.epochs),
        "train_seed": str(c.seed),
        "train_early_stop": c.early_stop_loss,
        "train_causal_mask": c.causal_mask,
    }


def loaded_run(tm: ModelRecord, number: int) -> RunRecord:
    """A loaded checkpoint as one of the session's runs: its settings, its loss curve and greedy check."""
    generation, expected = greedy_continuation(tm)
    return RunRecord(
        number,
        f"file:{tm.uid}",
        settings_of(tm.text, tm.gpt_cfg, tm.train_cfg),
        tuple(tm.losses),
        JobStatus.DONE,
        tm.stop_reason,
        generation,
        expected,
        tm.seconds,
    )
