"""README's test command works on its own from a fresh shell (it installs into a virtual environment)."""

from __future__ import annotations

import re
import stat
import subprocess
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_test_command() -> str:
    """The one line of the bash block in README's "Run the tests" section."""
    section = README.read_text(encoding="utf-8").split("## Run the tests", 1)[1].split("\n## ", 1)[0]
    lines = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert len(lines) == 1 and "pytest" in lines[0]
    return lines[0]


def stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run_in_fresh_shell(tmp_path: Path, command: str, venv_exists: bool) -> list[str]:
    """Run ``command`` in a fresh shell whose python3/pip/python are stubs logging which one ran."""
    system, repo, log = tmp_path / "bin", tmp_path / "repo", tmp_path / "log"
    system.mkdir(parents=True)
    repo.mkdir()
    venv_body = f"""mkdir -p .venv/bin
printf 'export PATH="%s/.venv/bin:$PATH"\\n' "$PWD" > .venv/bin/activate
printf '#!/bin/sh\\necho "venv-pip $*" >> {log}\\n' > .venv/bin/pip
printf '#!/bin/sh\\necho "venv-python $*" >> {log}\\n' > .venv/bin/python
chmod +x .venv/bin/pip .venv/bin/python
echo "created-venv" >> {log}"""
    stub(system / "python3", f'[ "$1 $2 $3" = "-m venv .venv" ] || exit 1\n{venv_body}')
    stub(system / "pip", f'echo "system-pip $*" >> {log}')
    stub(system / "python", f'echo "system-python $*" >> {log}')
    if venv_exists:
        subprocess.run([str(system / "python3"), "-m", "venv", ".venv"], cwd=repo, check=True)
        log.unlink()
    env = {"PATH": f"{system}:/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run(["bash", "-c", command], cwd=repo, env=env, check=True, timeout=30)
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
