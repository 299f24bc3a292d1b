"""`python -m tinygpt` (the seed program's terminal session) and the deploy files that go with it."""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tinygpt.__main__ import BANNER, SECTIONS, main, run
from tinygpt.config import SEED_TEXT, GPTConfig, TrainConfig
from tinygpt.explanations.explain import trace_of

ROOT = Path(__file__).resolve().parents[1]
# The SMALL config of tests/helpers.py as flags (d_head = 8), trained long enough to learn 你好世界.
SMALL_FLAGS = [
    "--d-model",
    "32",
    "--n-heads",
    "4",
    "--n-layers",
    "2",
    "--d-ff",
    "64",
    "--max-len",
    "16",
    "--lr",
    "3e-3",
]
SMALL_GPT = GPTConfig(vocab_size=4, max_len=16, d_model=32, n_heads=4, n_layers=2, d_ff=64)


def parse_sections(text: str) -> dict[str, str]:
    """{title: printed body} for every "=====\\ntitle\\n=====" block, in order."""
    parts = re.split(rf"\n{BANNER}\n(.+)\n{BANNER}\n", text)
    return {title: body.strip() for title, body in zip(parts[1::2], parts[2::2])}


def parse_matrix(body: str) -> np.ndarray:
    """A matrix as numpy prints it ("[[ 1.  -inf] [ ...]]") back into an array."""
    rows = [re.findall(r"-?inf|-?\d+\.?\d*(?:e[-+]?\d+)?", row) for row in body.split("]\n")]
    return np.array([[float(x) for x in row] for row in rows if row])


@pytest.fixture(scope="module")
def small_session():
    """(printed text, ModelRecord) of a 300-epoch run of the small config on 你好世界."""
    out = io.StringIO()
    record = run(SEED_TEXT, SMALL_GPT, TrainConfig(lr=3e-3, epochs=300, seed=0, early_stop_loss=0.0), out)
    return out.getvalue(), record


def test_session_prints_the_losses_every_100_epochs_with_the_seeds_numbering(small_session):
    text, record = small_session
    lines = re.findall(r"^Epoch (\d+), loss=(\d+\.\d{6})$", text, flags=re.M)
    assert [int(e) for e, _ in lines] == [0, 100, 200]
    assert len(record.losses) == 300  # --early-stop 0 runs every epoch, as the seed does
    for epoch, loss in lines:  # epoch k is the loss of optimizer step k + 1 = losses[k]
        assert loss == f"{record.losses[int(epoch)]:.6f}"
    assert record.losses[0] > 1.0 and record.losses[-1] < 0.01  # untrained (the seed printed 2.03) vs learned
    assert text.startswith("\nEpoch 0, loss=")


def test_session_prints_every_section_in_the_seeds_order_and_predicts_the_seed_example(small_session):
    text, _ = small_session
    sections = parse_sections(text)
    assert list(sections) == list(SECTIONS)
    assert sections["输入"] == "['你', '好', '世', '界']"
    assert sections["预测"] == "['好', '世', '界', '你']"
    for name in ("Q", "K", "V"):
        assert parse_matrix(sections[name]).shape == (4, 8)  # (T, d_head) of head 0
    assert parse_matrix(sections["scores = QK^T"]).shape == (4, 4)


def test_printed_attention_is_causal_scaled_and_normalised(small_session):
    text, record = small_session
    sections = parse_sections(text)
    Q, K = parse_matrix(sections["Q"]), parse_matrix(sections["K"])
    S = parse_matrix(sections["scores = QK^T"])
    S_scaled = parse_matrix(sections["scores_scaled"])
    alpha = parse_matrix(sections["softmax alpha"])
    upper = np.triu(np.ones((4, 4), dtype=bool), k=1)
    assert np.all(np.isneginf(S_scaled[upper])) and np.all(np.isfinite(S_scaled[~upper]))
    assert np.all(alpha[upper] == 0.0)  # α is lower-triangular
    assert np.all(alpha >= 0) and np.abs(alpha.sum(axis=1) - 1).max() <= 0.002  # 4 entries rounded to 3 decimals
    assert alpha[0, 0] == 1.0  # the first position can only read itself
    assert np.abs(S_scaled[~upper] - S[~upper] / math.sqrt(8)).max() <= 0.001
    assert np.abs(Q @ K.T - S).max() < 0.05  # S = Q Kᵀ, up to the rounding of Q and K
    expected = trace_of(record.model, record.vocab.encode(SEED_TEXT)[None], 0).state["alpha"][0, 0].numpy()
    assert np.abs(alpha - expected).max() <= 0.0005 + 1e-7


def test_same_seed_prints_the_same_numbers_and_another_seed_does_not(capsys):
    flags = [*SMALL_FLAGS, "--epochs", "40"]
    outputs = []
    for seed in ("7", "7", "8"):
        assert main([*flags, "--seed", seed]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert parse_sections(outputs[0])["Q"] != parse_sections(outputs[2])["Q"]


def test_flags_change_the_run(capsys):
    assert (
        main([*SMALL_FLAGS, "--epochs", "3", "--log-every", "1", "--text", "abcab", "--head", "3", "--layer", "1"]) == 0
    )
    text = capsys.readouterr().out
    assert re.findall(r"^Epoch (\d+),", text, flags=re.M) == ["0", "1", "2"]
    sections = parse_sections(text)
    assert sections["输入"] == "['a', 'b', 'c', 'a', 'b']"
    assert parse_matrix(sections["softmax alpha"]).shape == (5, 5)


def test_early_stop_reports_the_epoch_it_stopped_at(capsys):
    assert main([*SMALL_FLAGS, "--epochs", "2000", "--early-stop", "0.01"]) == 0
    text = capsys.readouterr().out
    last = re.findall(r"^Epoch (\d+), loss=(\S+)", text, flags=re.M)[-1]
    assert float(last[1]) < 0.01 and "early stop" in text
    assert parse_sections(text)["预测"] == "['好', '世', '界', '你']"


@pytest.mark.parametrize(
    "flags, names",
    [
        (["--d-model", "32", "--n-heads", "3"], ["--n-heads", "n_heads=3", "d_model=32"]),
        (["--lr", "abc"], ["--lr", "abc is not accepted: a finite number"]),
        (["--lr", "nan"], ["--lr", "nan is not accepted: a finite number"]),
        (["--epochs", "²"], ["--epochs", "² is not accepted: an integer in ASCII digits"]),
        (["--epochs", "１０"], ["--epochs", "１０ is not accepted: an integer in ASCII digits"]),
        (["--seed", "9" * 4400], ["--seed", "9" * 30 + "… is not accepted"]),
        (["--head", "1\u200c"], ["--head", "1⟨U+200C⟩ is not accepted"]),
        (["--lr", "0"], ["--lr", "lr=0.0"]),
        (["--epochs", "0"], ["--epochs", "epochs=0"]),
        (["--text", ""], ["--text", "empty"]),
        (["--norm", "middle"], ["--norm", "invalid choice: 'middle'"]),
        (["--n-layers", "2", "--layer", "2"], ["--layer", "0 to 1"]),
        (["--max-len", "8", "--window", "9"], ["--window", "from 1 to max_len=8"]),
        (["--example", "poem"], ["--example", "invalid choice: 'poem'", "'textbook', 'context'"]),
        (["--unknown"], ["unrecognized arguments: --unknown"]),
        (["--text", "abcdefghij" * 20, "--max-len", "16"], ["tokens_per_step=3200", "at most 1024"]),
        (
            ["--text", "abcdefghij" * 10, "--d-model", "768", "--n-layers", "4", "--d-ff", "3072"],
            ["work_per_step=", "at most 2.5e+09"],
        ),
        (["--epochs", "6000"], ["--epochs", "epochs=6000", "at most 5000"]),
    ],
)
def test_bad_flags_exit_2_with_a_message_naming_them(capsys, flags, names):
    with pytest.raises(SystemExit) as exc:
        main(flags)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m tinygpt")
    for name in names:
        assert name in err


def test_help_lists_every_flag_and_runs_as_a_module():
    proc = subprocess.run(
        [sys.executable, "-m", "tinygpt", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    for flag in (
        "--d-model",
        "--n-heads",
        "--n-layers",
        "--d-ff",
        "--max-len",
        "--lr",
        "--epochs",
        "--seed",
        "--text",
        "--early-stop",
        "--norm",
        "--positions",
        "--log-every",
        "--layer",
        "--head",
        "--window",
        "--example",
    ):
        assert flag in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "tinygpt", "--d-model", "10", "--n-heads", "4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "--n-heads" in bad.stderr and "n_heads=4" in bad.stderr


# ---------------------------------------------------------------- deploy files


def test_upload_cap_fits_the_seed_checkpoint_and_matches_the_checkpoint_limit():
    cap_bytes = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"] * 2**20
    seed_weights = 4 * GPTConfig().n_parameters()  # float32: 75,890,704 bytes
    assert seed_weights < cap_bytes
    checkpoint = pytest.importorskip("tinygpt.training.checkpoint")
    limit = checkpoint.MAX_CHECKPOINT_BYTES  # Streamlit counts maxUploadSize in MiB
    assert limit <= cap_bytes < limit + 2**20


def test_requirements_pin_the_installed_torch_cpu_build_on_linux_and_the_same_version_elsewhere():
    import torch

    lines = [ln.split("#")[0].strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()]
    torch_lines = [ln for ln in lines if ln.startswith("torch")]
    assert len(torch_lines) == 2
    base = torch.__version__.split("+")[0]
    assert torch_lines[0].startswith(f"torch=={base}+cpu ;") and 'sys_platform == "linux"' in torch_lines[0]
    assert torch_lines[1].startswith(f"torch=={base} ;")
    assert "--find-links https://download.pytorch.org/whl/cpu/torch/" in lines
    assert not any(ln.startswith(("--extra-index-url", "--index-url", "-i ")) for ln in lines)


def test_packages_txt_installs_the_cjk_font_ci_installs_so_cloud_figures_show_chinese():
    # Community Cloud apt-get installs each line of packages.txt (Debian); without a CJK font the
    # PNG figures (tinygpt.explanations.figures, drawn on the server) show boxes for Chinese characters.
    packages = [ln.strip() for ln in (ROOT / "packages.txt").read_text().splitlines() if ln.strip()]
    assert packages == ["fonts-wqy-microhei"]
    assert "apt-get install -y fonts-wqy-microhei" in (ROOT / ".ci" / "run").read_text()


def test_a_diverging_run_exits_1_with_the_trainers_message(capsys, monkeypatch):
    from tinygpt.training import train as train_module

    def diverge(self, on_step=None, should_stop=None):
        raise train_module.NonFiniteLossError(3, float("nan"), 0.5)

    monkeypatch.setattr(train_module.Trainer, "run", diverge)
    assert main([*SMALL_FLAGS, "--epochs", "5"]) == 1
    captured = capsys.readouterr()
    assert "输入" not in captured.out
    assert "python -m tinygpt: error: loss became nan at step 3 with lr=0.5" in captured.err
