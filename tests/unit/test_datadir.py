"""Where `planwire up` keeps its data, and that two stacks never share the folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planwire.datadir import DataLock, default_data_dir
from planwire.procs import StackError


def test_the_data_folder_is_the_chosen_one_else_under_the_users_data_directory(monkeypatch):
    monkeypatch.setenv("PLANWIRE_DATA_DIR", "/srv/pw")
    assert default_data_dir() == Path("/srv/pw")
    monkeypatch.delenv("PLANWIRE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", "/home/u/data")
    assert default_data_dir() == Path("/home/u/data/planwire")
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", "/home/u")
    assert default_data_dir() == Path("/home/u/.local/share/planwire")


def test_a_second_stack_on_a_folder_in_use_is_refused_with_the_holders_pid(tmp_path):
    first = DataLock(tmp_path / "data")
    with pytest.raises(StackError, match=rf"in use by process {os.getpid()}"):
        DataLock(tmp_path / "data")
    first.release()
    DataLock(tmp_path / "data").release()  # free again once the first stack let go
    first.release()  # harmless twice
