"""README's run and test commands work on their own from a fresh shell (each installs into a virtual environment),
where only ``python3`` exists."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_command(section_title: str) -> str:
    """The one line of the bash block in the README section ``section_title``."""
    section = README.read_text(encoding="utf-8").split(f"## {section_title}", 1)[1].split("\n## ", 1)[0]
    lines = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def readme_test_command() -> str:
    """The one line of the bash block in README's "Run the tests" section."""
    command = readme_command("Run the tests")
    assert "pytest" in command
    return command


def stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run_in_fresh_shell(tmp_path: Path, command: str, venv_exists: bool, system_python: bool = True) -> list[str]:
    """Run ``command`` in a fresh shell whose python3/pip/python are stubs logging which one ran.

    The virtual environment the ``python3`` stub makes holds ``pip``, ``python`` and ``streamlit`` stubs. With
    ``system_python=False`` the shell has no ``python`` at all (as on Debian and Ubuntu today): its PATH is the
    stubs and links to the two programs the venv stub needs, so a call of ``python`` fails the command.
    """
    system, repo, log = tmp_path / "bin", tmp_path / "repo", tmp_path / "log"
    system.mkdir(parents=True)
    repo.mkdir()
    tools = ["pip", "python", "streamlit"]
    venv_body = (
        """mkdir -p .venv/bin
printf 'export PATH="%s/.venv/bin:$PATH"\\n' "$PWD" > .venv/bin/activate
"""
        + "".join(
            f"""printf '#!/bin/sh\\necho "venv-{tool} $*" >> {log}\\n' > .venv/bin/{tool}
chmod +x .venv/bin/{tool}
"""
            for tool in tools
        )
        + f'echo "created-venv" >> {log}'
    )
    stub(system / "python3", f'[ "$1 $2 $3" = "-m venv .venv" ] || exit 1\n{venv_body}')
    stub(system / "pip", f'echo "system-pip $*" >> {log}')
    if system_python:
        stub(system / "python", f'echo "system-python $*" >> {log}')
        path = f"{system}:/usr/bin:/bin"
    else:
        programs = tmp_path / "programs"
        programs.mkdir()
        for program in ("mkdir", "chmod"):
            (programs / program).symlink_to(shutil.which(program))
        path = f"{system}:{programs}"
    if venv_exists:
        subprocess.run([str(system / "python3"), "-m", "venv", ".venv"], cwd=repo, check=True, env={"PATH": path})
        log.unlink()
    env = {"PATH": path, "HOME": str(tmp_path)}
    subprocess.run([shutil.which("bash"), "-c", command], cwd=repo, env=env, check=True, timeout=30)
    return log.read_text().splitlines()


def test_readme_test_command_installs_into_a_virtual_environment_from_a_fresh_shell(tmp_path):
    command = readme_test_command()
    assert "pip install -r requirements-dev.txt" in command and command.endswith("python -m pytest -q")
    assert run_in_fresh_shell(tmp_path / "new", command, venv_exists=False) == [
        "created-venv",
        "venv-pip install -r requirements-dev.txt",
        "venv-python -m pytest -q",
    ]
    assert run_in_fresh_shell(tmp_path / "old", command, venv_exists=True) == [
        "venv-pip install -r requirements-dev.txt",
        "venv-python -m pytest -q",
    ]  # the first command's .venv, reused


def test_ci_runs_the_suite_itself():
    assert "python -m pytest -q" in (README.parent / ".ci" / "run").read_text()


def test_readme_run_command_works_where_only_python3_exists(tmp_path):
    command = readme_command("Run the app")
    assert command.startswith("python3 -m venv .venv") and command.endswith("streamlit run streamlit_app.py")
    assert run_in_fresh_shell(tmp_path, command, venv_exists=False, system_python=False) == [
        "created-venv",
        "venv-pip install -r requirements.txt",
        "venv-streamlit run streamlit_app.py",
    ]


def test_the_shell_without_python_really_has_none(tmp_path):
    """The stub shell of the test above fails a command that calls ``python``, so the test can fail."""
    with pytest.raises(subprocess.CalledProcessError):
        run_in_fresh_shell(tmp_path, "python -m venv .venv", venv_exists=False, system_python=False)


def test_readme_test_command_works_where_only_python3_exists(tmp_path):
    assert run_in_fresh_shell(tmp_path, readme_test_command(), venv_exists=False, system_python=False) == [
        "created-venv",
        "venv-pip install -r requirements-dev.txt",
        "venv-python -m pytest -q",
    ]
