"""What a page reads of a training job: its :class:`Progress` while it runs, and a session's
:class:`RunRecord` of each run that ended, labelled by the settings that differ (:func:`run_labels`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.config_fields import setting_values
from tinygpt.training.job_queue import JobStatus
from tinygpt.training.record import StopReason

if TYPE_CHECKING:  # the job's module imports this one
    from tinygpt.training.jobs import TrainingJob


@dataclass(frozen=True)
class Progress:
    """A consistent view of a job for the page: status, losses so far, speed, place in line."""

    status: JobStatus
    losses: list[float]
    epochs: int
    steps_per_s: float | None
    eta_s: float | None
    place: int
    replay: tuple[int, int] | None


def settings_of(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> dict[str, object]:
    """The settings that identify a run, by their field names (used to label runs): the text, then
    every field of the configs (:func:`tinygpt.config_fields.setting_values`), the ``window`` as
    trained (the whole text's when unset)."""
    values = setting_values(gpt_cfg, train_cfg)
    return {"text": text, **values, "window": train_cfg.window_for(len(text), gpt_cfg.max_len)}


@dataclass(frozen=True)
class RunRecord:
    """What a session keeps of a finished run: its settings, loss curve and greedy generation."""

    number: int
    job_id: str
    settings: dict[str, object]
    losses: tuple[float, ...]
    status: JobStatus
    stop_reason: StopReason | JobStatus  # JobStatus.ERROR when the run left no model
    generation: str
    expected: str
    seconds: float


def record_of(job: TrainingJob, number: int) -> RunRecord:
    """A RunRecord of a job that has ended."""
    record = job.result
    gen, expected = job.generation
    return RunRecord(
        number,
        job.job_id,
        settings_of(job.text, job.gpt_cfg, job.train_cfg),
        tuple(job.losses),
        job.status,
        record.stop_reason if record is not None else JobStatus.ERROR,
        gen,
        expected,
        record.seconds if record is not None else 0.0,
    )


def run_labels(settings: list[dict[str, object]], numbers: list[int], name: Callable[[str, object], str]) -> list[str]:
    """ "#n · setting · …" for each run, naming only the settings that differ between the runs.

    ``name(key, value)`` writes one setting (the Train page passes the form's own words in the
    session's language).
    The setting changed most recently comes first (ties in the settings' order), so the one a
    student just switched, e.g. causal_mask=False after a run with the mask, leads every label.
    """
    if not settings:
        return []
    keys = [k for k in settings[0] if len({repr(s.get(k)) for s in settings}) > 1]
    last_change = {
        k: max(i for i in range(1, len(settings)) if repr(settings[i].get(k)) != repr(settings[i - 1].get(k)))
        for k in keys
    }
    keys.sort(key=lambda k: -last_change[k])  # stable: ties keep the settings' order
    return [" · ".join([f"#{n}"] + [name(k, s[k]) for k in keys]) for s, n in zip(settings, numbers)]
