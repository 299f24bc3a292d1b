"""A session's training job: a background thread that trains while the pages keep working.

The thread never calls ``st.*``; it only writes the job's fields under its lock. The page polls
the job from a fragment and redraws the live chart. A process-wide semaphore bounds how many jobs
train at once (the host has 2 cores); a waiting job reports its place in line.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import streamlit as st

from tinygpt.config import GPTConfig, TrainConfig
from tinygpt.train import NonFiniteLossError, TrainedModel, Trainer, build
from tinygpt.ui.models import ModelShelf, model_key, shelf

MAX_CONCURRENT_JOBS = 1


@dataclass
class JobQueue:
    """Process-wide limit on concurrent training jobs, with a FIFO of waiting jobs."""

    slots: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(MAX_CONCURRENT_JOBS))
    waiting: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def place(self, job_id: int) -> int:
        """1-based place of a waiting job in the line (0 when it is not waiting)."""
        with self.lock:
            return self.waiting.index(job_id) + 1 if job_id in self.waiting else 0


@st.cache_resource(show_spinner=False)
def job_queue() -> JobQueue:
    """The one JobQueue of this server process."""
    return JobQueue()


@dataclass
class TrainingJob:
    """One training run in a background thread.

    ``status``: "waiting", "running", "done" (epochs or early stop), "stopped" (Stop pressed),
    "error" (``error`` holds the exception; for a non-finite loss the last finite weights are in
    ``result``). ``losses`` grows step by step; read it through :meth:`snapshot`.
    """

    text: str
    gpt_cfg: GPTConfig
    train_cfg: TrainConfig
    status: str = "waiting"
    losses: list[float] = field(default_factory=list)
    result: TrainedModel | None = None
    error: Exception | None = None
    started: float = 0.0
    finished: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None

    def start(self, queue: JobQueue, models: ModelShelf) -> None:
        """Start the thread; returns at once."""
        self._thread = threading.Thread(target=self._run, args=(queue, models), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the job to stop at the next step boundary (it keeps the weights it has)."""
        self._stop.set()

    @property
    def active(self) -> bool:
        """True while waiting or running."""
        return self.status in ("waiting", "running")

    def snapshot(self) -> tuple[str, list[float]]:
        """(status, a copy of the losses so far), consistent with each other."""
        with self._lock:
            return self.status, list(self.losses)

    def _on_step(self, step: int, loss: float) -> None:
        with self._lock:
            self.losses.append(loss)

    def _run(self, queue: JobQueue, models: ModelShelf) -> None:
        key = model_key(self.text, self.gpt_cfg, self.train_cfg)
        cached = models.get(key)
        if cached is not None:
            with self._lock:
                self.losses, self.result, self.status = list(cached.losses), cached, "done"
            return
        with queue.lock:
            queue.waiting.append(id(self))
        with queue.slots:
            with queue.lock:
                queue.waiting.remove(id(self))
            if self._stop.is_set():
                self.status = "stopped"
                return
            self.started = time.perf_counter()
            self.status = "running"
            try:
                tm = build(self.text, self.gpt_cfg, self.train_cfg)
                Trainer(tm).run(self._on_step, self._stop.is_set)
                self.result = tm
                if tm.stop_reason == "stopped":
                    self.status = "stopped"
                else:
                    models.put(key, tm)
                    self.status = "done"
            except NonFiniteLossError as exc:
                self.result, self.error, self.status = tm, exc, "error"
            except Exception as exc:  # reported on the page, never raised into Streamlit
                self.error, self.status = exc, "error"
            finally:
                self.finished = time.perf_counter()


def start_job(text: str, gpt_cfg: GPTConfig, train_cfg: TrainConfig) -> TrainingJob:
    """Create and start this session's job (the caller keeps it in st.session_state)."""
    job = TrainingJob(text, gpt_cfg, train_cfg)
    job.start(job_queue(), shelf())
    return job
