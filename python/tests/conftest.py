"""Shared by the package's tests: running a docs/examples script as CI does."""

import os
import runpy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run_example(tmp_path):
    """Runs docs/examples/NAME start to end as __main__, in tmp_path."""

    def run(name):
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            runpy.run_path(str(REPO / "docs" / "examples" / name), run_name="__main__")
        finally:
            os.chdir(cwd)

    return run
