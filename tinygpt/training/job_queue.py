"""The training line of a process: how many jobs train at once and wait, where a job is
(:class:`JobStatus`), and the refusals of a request the server cannot serve now."""

from __future__ import annotations

import enum
import os
import threading


def env_int(name: str, default: int) -> int:
    """A whole number from the environment variable ``name`` (the operator's setting), else ``default``."""
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else default


#: Jobs training at once in this process (env TINYGPT_MAX_JOBS overrides): 2 cores, 1 thread each.
MAX_CONCURRENT_JOBS = max(1, env_int("TINYGPT_MAX_JOBS", 2))
#: Jobs that may wait in line for a slot at once (env TINYGPT_MAX_WAITING overrides); a request
#: beyond it is refused (:class:`QueueFullError`) instead of waiting for hours.
MAX_WAITING_JOBS = env_int("TINYGPT_MAX_WAITING", 6)


class JobStatus(enum.StrEnum):
    """Where a :class:`TrainingJob` is (the values are the i18n keys' and the tests' own)."""

    WAITING = "waiting"  # for a training slot
    RUNNING = "running"
    PAUSED = "paused"
    DONE = "done"  # epochs or early stop; ``result`` is the shared model
    STOPPED = "stopped"  # Stop pressed or paused too long; ``result`` has the weights reached
    ERROR = "error"  # ``error`` holds the exception (a non-finite loss: ``result`` has the last finite weights)


#: The statuses of a job that has not ended.
ACTIVE = frozenset({JobStatus.WAITING, JobStatus.RUNNING, JobStatus.PAUSED})


class JobQueue:
    """Process-wide limit on concurrent training jobs, first come first served, and on the line.

    ``slots`` jobs train at once; at most ``max_waiting`` more may wait for a slot (:meth:`admit`
    refuses the next one).
    """

    def __init__(self, slots: int = MAX_CONCURRENT_JOBS, max_waiting: int = MAX_WAITING_JOBS) -> None:
        self.slots = slots
        self.max_waiting = max_waiting
        self.running = 0
        self.admitted = 0  # jobs admitted that have not yet got a slot or left the line
        self.waiting: list[str] = []
        self._cond = threading.Condition()

    def admit(self) -> None:
        """Reserve a place for one more job (before its thread starts; its :meth:`acquire` ends the reservation).

        Raises:
            QueueFullError (``train.queue_full``): ``max_waiting`` jobs already wait beyond the free slots.
        """
        with self._cond:
            free = max(0, self.slots - self.running)
            if self.admitted - free >= self.max_waiting:
                raise QueueFullError("train.queue_full", waiting=self.admitted - free, slots=self.slots)
            self.admitted += 1

    def acquire(self, job_id: str, cancelled=lambda: False) -> bool:
        """Wait for a slot in line; False if ``cancelled()`` became true while waiting.

        Ends the reservation :meth:`admit` made (call ``admit`` first, as :func:`start_job` does).
        """
        with self._cond:
            self.waiting.append(job_id)
            try:
                while not (self.running < self.slots and self.waiting[0] == job_id):
                    if cancelled():
                        return False
                    self._cond.wait(0.2)
                self.running += 1
                return True
            finally:
                self.waiting.remove(job_id)
                self.admitted = max(0, self.admitted - 1)
                self._cond.notify_all()

    def release(self) -> None:
        """Give a slot back."""
        with self._cond:
            self.running -= 1
            self._cond.notify_all()

    def place(self, job_id: str) -> int:
        """1-based place of a waiting job in the line (0 when it is not waiting)."""
        with self._cond:
            return self.waiting.index(job_id) + 1 if job_id in self.waiting else 0


class JobRefusedError(RuntimeError):
    """The server refused a request it cannot serve now; nothing was started.

    ``key`` is the i18n message, ``params`` fill it; the English text is the exception's message.
    """

    def __init__(self, key: str, message: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(message)


class MemoryLimitError(JobRefusedError):
    """A new training (or a file's loading) would take the server past ``MEMORY_LIMIT_MB``.

    ``key`` is the i18n message: ``train.memory_full`` when requested, ``train.memory_full_start``
    when a queued job's turn came, ``train.upload_memory`` for a checkpoint file; ``params`` are
    MB figures (rss, need, limit).
    """

    def __init__(self, rss_mb: float, need_mb: float, limit_mb: float, key: str = "train.memory_full") -> None:
        super().__init__(
            key,
            f"the server holds {rss_mb:.0f} MB and this needs about {need_mb:.0f} MB more; "
            f"the limit is {limit_mb:.0f} MB",
            rss=round(rss_mb),
            need=round(need_mb),
            limit=round(limit_mb),
        )


class QueueFullError(JobRefusedError):
    """The line is full: ``train.queue_full`` (the server's, params ``waiting``, ``slots``) or
    ``train.session_busy`` (this session already waits for a training)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key, f"the training queue refused the request ({key})", **params)
