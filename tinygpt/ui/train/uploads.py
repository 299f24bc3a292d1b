"""Checkpoint files uploaded on the Train page: checked from their first bytes, counted against the
memory guard, and let go of at once.

By the time the page sees an upload, Streamlit's server holds the whole file in memory (its
uploaded-file manager keeps it for the session until the session ends or the file is removed),
and the ``st.file_uploader`` keeps offering it on every rerun. So :func:`read_upload` reads only
the header before deciding (``tinygpt.training.checkpoint.check_file``: 8 bytes, then the JSON header), asks
the memory guard whether loading fits (``tinygpt.training.jobs.check_memory_mb``), reads the data from the
same buffer (``UploadedFile`` is an ``io.BytesIO`` over the received bytes; ``read()`` from the
start hands out that object, no copy), and whatever the outcome releases the file (:func:`release`):
removed from the uploaded-file manager, its buffer closed, and the uploader drawn under a new key
(:func:`upload_key`) so the browser forgets it too.
"""

from __future__ import annotations

from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFile

from tinygpt.training import checkpoint
from tinygpt.training.jobs import check_memory_mb
from tinygpt.training.record import ModelRecord
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.views.train_table import T_UPLOAD

#: The uploader's key before any file was read; later ones add the number of files read.
UPLOAD_KEY = T_UPLOAD


def upload_key() -> str:
    """The Train page uploader's widget key: a new one after each file read, so the uploader
    forgets the file (Streamlit does not let a script set a file uploader's value)."""
    n = train_session().uploads_read
    return UPLOAD_KEY if n == 0 else f"{UPLOAD_KEY}_{n}"


def release(upload: UploadedFile) -> None:
    """Let go of ``upload`` at once: remove it from this session's files in Streamlit's
    uploaded-file manager, close its buffer and make :func:`upload_key` a new key."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        ctx.uploaded_file_mgr.remove_file(ctx.session_id, upload.file_id)
    upload.close()
    train_session().uploads_read += 1


def read_upload(upload: UploadedFile) -> ModelRecord:
    """The model of an uploaded checkpoint; the file is released whatever happens (:func:`release`).

    Raises:
        tinygpt.training.checkpoint.CheckpointError: the header refused the file (read: at most 8 bytes and
            the JSON header) or its data did.
        tinygpt.training.jobs.MemoryLimitError (``train.upload_memory``): loading it would take the server
            past its memory limit (``checkpoint.load_memory_bytes``).
    """
    try:
        upload.seek(0)
        checked = checkpoint.check_file(upload, upload.size)
        check_memory_mb(checkpoint.load_memory_bytes(upload.size) / 1e6, key="train.upload_memory")
        return checkpoint.load_checked(upload, checked)
    finally:
        release(upload)
