"""The `privpost` command of the Python package: the Rust CLI, run in this process.

`python -m privpost ARGS…` and the `privpost` script pip installs both run it.
"""

import os
import sys
from typing import List, NoReturn, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> NoReturn:
    """Runs `privpost ARGS…` (the binary's own code) and exits with its code."""
    args = list(sys.argv if argv is None else argv)
    args[0] = "privpost"
    command = [sys.executable, "-m", "privpost"]
    code = _native.main(args, os.path.abspath(_native.__file__), command)
    sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
