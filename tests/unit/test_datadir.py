"""Where `planwire up` keeps its data, and that two stacks never share the folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planwire.datadir import PASSWORD_NAME, DataLock, default_data_dir, valkey_password
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


def test_each_data_folder_has_its_own_valkey_password_readable_by_its_owner_only(tmp_path):
    first = valkey_password(tmp_path / "one")
    assert len(first) >= 43  # 32 random bytes
    assert valkey_password(tmp_path / "one") == first  # a restart finds its data again
    assert valkey_password(tmp_path / "two") != first
    stored = tmp_path / "one" / PASSWORD_NAME
    assert stored.stat().st_mode & 0o777 == 0o600
    assert stored.read_text().strip() == first


def test_a_password_file_opened_up_by_hand_is_closed_again(tmp_path):
    password = valkey_password(tmp_path)
    (tmp_path / PASSWORD_NAME).chmod(0o644)
    assert valkey_password(tmp_path) == password
    assert (tmp_path / PASSWORD_NAME).stat().st_mode & 0o777 == 0o600
