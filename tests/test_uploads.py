"""Checkpoint uploads on the Train page: checked from their first bytes, counted against the memory
guard, and released at once (removed from Streamlit's uploaded-file manager, the uploader forgets them)."""

from __future__ import annotations

import pytest
from helpers import small_model
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.testing.v1 import AppTest

from tinygpt.i18n import t
from tinygpt.training import checkpoint, jobs
from tinygpt.training.checkpoint import to_bytes
from tinygpt.ui.shared.models import K_OWN
from tinygpt.ui.train.train_session import train_session
from tinygpt.ui.views.train_table import T_UPLOAD


def open_train(lang: str) -> AppTest:
    at = AppTest.from_file("../streamlit_app.py", default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def removed(monkeypatch) -> list[str]:
    """The file ids removed from Streamlit's uploaded-file manager during the test."""
    ids: list[str] = []
    remove = MemoryUploadedFileManager.remove_file

    def spy(self, session_id: str, file_id: str) -> None:
        ids.append(file_id)
        remove(self, session_id, file_id)

    monkeypatch.setattr(MemoryUploadedFileManager, "remove_file", spy)
    return ids


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """How many bytes each read of an uploaded file asked for (-1: the rest)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    sizes: list[int] = []
    read = UploadedFile.read

    def spy(self, n=-1):
        sizes.append(n)
        return read(self, n)

    monkeypatch.setattr(UploadedFile, "read", spy, raising=False)
    monkeypatch.setattr(UploadedFile, "getvalue", lambda self: pytest.fail("getvalue() copies the whole file"), False)
    monkeypatch.setattr(UploadedFile, "getbuffer", lambda self: pytest.fail("getbuffer() copies the file"), False)
    return sizes


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_file_of_zeros_is_refused_from_its_first_bytes_and_released_at_once(lang, removed, reads):
    at = open_train(lang)
    at.file_uploader(key=T_UPLOAD).set_value(("zeros.safetensors", bytes(5 * 2**20), "application/octet-stream"))
    at.run()
    assert not at.exception
    refusal = t("train.upload_refused", lang, name="zeros.safetensors", error=t("ckpt.err.not_safetensors", lang))
    assert [e.value for e in at.error] == [refusal]  # the file named, and why
    assert reads == [9]  # the header length and the byte after it; nothing more
    assert len(removed) == 1  # gone from the session's files on the server
    assert train_session(at.session_state).uploads_read == 1
    assert at.file_uploader(key="train_upload_1").value is None  # a new, empty uploader
    assert not [w for w in at.file_uploader if w.key == "train_upload"]


def test_a_good_file_loads_from_the_received_bytes_and_is_released_too(removed, reads):
    record = small_model()
    at = open_train("en")
    at.file_uploader(key=T_UPLOAD).set_value(("m.safetensors", to_bytes(record), "application/octet-stream"))
    at.run()
    assert not at.exception and at.success and at.session_state[K_OWN].text == record.text
    n = int.from_bytes(to_bytes(record)[:8], "little")
    assert reads == [9, n - 1, -1]  # the header, then the whole file (the received bytes object itself)
    assert len(removed) == 1 and at.file_uploader(key="train_upload_1").value is None
    assert at.success[0].value.startswith(t("train.upload_ok", "en", text=record.text, params=0, steps=0)[:8])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_file_that_would_pass_the_memory_limit_is_refused_and_released(monkeypatch, lang, removed):
    record = small_model()
    data = to_bytes(record)
    at = open_train(lang)
    rss = jobs.process_rss_mb()
    # RSS + what loading adds (2 × the file) passes the limit by half of it
    monkeypatch.setattr(jobs, "MEMORY_LIMIT_MB", rss + checkpoint.load_memory_bytes(len(data)) / 2e6)
    monkeypatch.setattr(jobs, "process_rss_mb", lambda: rss)
    at.file_uploader(key=T_UPLOAD).set_value(("m.safetensors", data, "application/octet-stream"))
    at.run()
    assert not at.exception and "own_model" not in at.session_state
    (error,) = [e.value for e in at.error]
    assert ("内存不足" if lang == "zh" else "short of memory") in error and "MB" in error
    assert len(removed) == 1


def test_load_memory_counts_the_tensors_and_the_model():
    assert checkpoint.load_memory_bytes(150 * 10**6) == 300 * 10**6
