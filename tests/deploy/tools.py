"""Helpers for the deployment checks: the repo root and external tools that CI must have."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def require_tool(name: str) -> str:
    """The tool's path. Missing: a skip on a laptop, a failure in CI (which installs it)."""
    path = shutil.which(name)
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed; CI installs it with .ci/install-system-deps.sh")
    pytest.skip(f"{name} is not installed (bash .ci/install-system-deps.sh)")


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a tool from the repo root, capturing its output for the assertion message."""
    return subprocess.run(
        argv, cwd=kwargs.pop("cwd", ROOT), capture_output=True, text=True, timeout=120, **kwargs
    )
