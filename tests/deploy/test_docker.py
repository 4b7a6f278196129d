"""Dockerfile essentials. No Docker engine here to build it, so its text is checked instead."""

from __future__ import annotations

import json
import re
import tomllib

from tests.deploy.tools import ROOT

LOCK = "requirements/image.lock"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n(\s*#[^\n]*\n)*", " ", (ROOT / "Dockerfile").read_text())
    lines = (line.strip() for line in text.splitlines())
    return [tuple(line.split(None, 1)) for line in lines if line and not line.startswith("#")]


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (op, _) in enumerate(steps) if op == "FROM")
    return steps[last_from:]


def test_bases_are_slim_python_pinned_by_tag():
    bases = [args.split()[0] for op, args in instructions() if op == "FROM"]
    assert len(bases) >= 2, "multi-stage: build the wheel in one stage, run in another"
    for image in bases:
        repo, _, tag = image.partition(":")
        assert repo == "python" and re.fullmatch(r"3\.11\.\d+-slim(-\w+)?", tag), image


def test_final_stage_runs_as_a_non_root_user():
    users = [args for op, args in final_stage() if op == "USER"]
    assert users, "no USER in the final stage"
    assert users[-1].split(":")[0] not in {"root", "0"}


def test_final_stage_copies_the_built_environment_and_compiles_nothing():
    stage = final_stage()
    assert any(op == "COPY" and args.startswith("--from=build") for op, args in stage)
    runs = " ".join(args for op, args in stage if op == "RUN")
    for word in ("gcc", "build-essential", "apt-get install", "pip install", "pip wheel"):
        assert word not in runs


def test_pip_never_keeps_a_cache():
    for op, args in instructions():
        if op == "RUN" and re.search(r"\bpip (install|wheel)\b", args):
            for command in re.findall(r"pip (?:install|wheel)[^&]*", args):
                assert "--no-cache-dir" in command, command


def test_only_the_project_and_its_packages_are_copied():
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    expected = {"pyproject.toml", LOCK, *(p.rstrip("*") for p in packages)}
    copied = {
        args.split()[0]
        for op, args in instructions()
        if op == "COPY" and not args.startswith("--from")
    }
    assert copied == expected
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert rules[0] == "*", ".dockerignore must start by excluding everything (an allow-list)"
    assert {f"!{p}/" for p in expected - {"pyproject.toml", LOCK}} | {
        "!pyproject.toml",
        f"!{LOCK}",
    } <= set(rules)


def test_entrypoint_runs_one_service_and_defaults_to_the_gateway():
    steps = dict(final_stage())
    assert json.loads(steps["ENTRYPOINT"]) == ["planwire", "run"]
    assert json.loads(steps["CMD"]) == ["gateway"]
    assert "planwire" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert steps["EXPOSE"] == "8000"


def test_healthcheck_asks_health_with_the_standard_library():
    check = dict(final_stage())["HEALTHCHECK"]
    assert "urllib.request" in check and "/ready" in check and "CMD" in check


def test_dependencies_install_only_from_the_hash_checked_lock():
    runs = " ".join(args for op, args in instructions() if op == "RUN")
    installs = re.findall(r"pip install [^&]*", runs)
    assert any(f"--require-hashes -r {LOCK}" in c for c in installs), installs
    # planwire itself adds nothing the lock does not hold.
    wheel = [c for c in installs if "planwire-*.whl" in c]
    assert wheel and all("--no-deps" in c for c in wheel), wheel
