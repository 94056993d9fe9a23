"""Every test suite of this repository runs with retinue's pytest plugin, which is opt-in.

This file sits at the root so that each tox environment picks it up, whichever directory it
points pytest at (`tests`, `plugins/<name>/tests`, `benchmarks`). It also keeps every test
out of the real user's store: the `retinue` command records each session by default into
the platform's user data directory, which here is a temporary one for each test
(`XDG_DATA_HOME`, which `platformdirs` honours on Linux), with `$RETINUE_STORE` unset.
"""

import pytest

pytest_plugins = ["retinue.testing.plugin"]


@pytest.fixture(autouse=True)
def _user_data_in_a_temporary_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test its own user store: one test's sessions never show in another's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("user-data")))
    monkeypatch.delenv("RETINUE_STORE", raising=False)
