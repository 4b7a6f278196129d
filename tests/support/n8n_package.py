"""The node descriptions of `n8n-nodes-base`, fetched with `npm pack` (no dependencies).

Only `dist/types/nodes.json` and `credentials.json` are unpacked. N8N_NODES_BASE_DIR names
an unpacked copy instead. npm is a requirement of the tests that use it, not an excuse to
skip them: without npm or the registry they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from catalog.n8n.descriptions import N8N_NODES_BASE_VERSION

DESCRIPTIONS = ("package/dist/types/nodes.json", "package/dist/types/credentials.json")


def fetch(folder: Path) -> Path:
    """An unpacked n8n-nodes-base at the pinned version, inside `folder`."""
    given = os.environ.get("N8N_NODES_BASE_DIR")
    if given:
        return Path(given)
    npm = shutil.which("npm")
    assert npm, "npm is needed to fetch n8n-nodes-base (or set N8N_NODES_BASE_DIR)"
    spec = f"n8n-nodes-base@{N8N_NODES_BASE_VERSION}"
    packed = subprocess.run(
        [npm, "pack", spec, "--silent"], cwd=folder, capture_output=True, text=True, timeout=300
    )
    assert packed.returncode == 0, packed.stderr
    with tarfile.open(folder / packed.stdout.strip().splitlines()[-1]) as tar:
        for member in DESCRIPTIONS:
            tar.extract(member, folder, filter="data")
    return folder / "package"
