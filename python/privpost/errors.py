"""privpost's exceptions and warnings.

Every error privpost raises is a :class:`PrivpostError` and also the built-in
class that fits, so ``except ValueError`` keeps working::

    PrivpostError
    ├── InputError           (ValueError)        a value given is not allowed
    │   └── ArgumentTypeError (TypeError)        … it is of the wrong type
    ├── PathNotFoundError    (FileNotFoundError) a file or folder named does not exist
    ├── PrivpostOSError      (OSError)           a file could not be read or written
    └── RunError             (RuntimeError)      the computation failed while running

Each carries ``argument`` (the function's argument at fault, e.g. ``"event"``)
and ``key`` (the key inside it, e.g. ``"event.sigma"``), or None.

Warnings are :class:`PrivpostWarning` subclasses: :class:`ConvergenceWarning`
(chains that have not settled), :class:`DepartureWarning` (a released value no
dataset could give) and :class:`AccountantWarning` (an order search that ended
at its cap). Silence one with ``warnings.simplefilter("ignore", ConvergenceWarning)``.

>>> import privpost
>>> try:
...     privpost.account({"mechanism": "laplace", "scale": 1.0})
... except ValueError as e:
...     print(type(e).__name__, e.argument, e.key)
InputError event l1_sensitivity
"""

from typing import Optional

__all__ = [
    "PrivpostError",
    "InputError",
    "ArgumentTypeError",
    "PathNotFoundError",
    "PrivpostOSError",
    "RunError",
    "PrivpostWarning",
    "ConvergenceWarning",
    "DepartureWarning",
    "AccountantWarning",
]


class PrivpostError(Exception):
    """Any error privpost raises; ``argument`` and ``key`` name what is at fault."""

    argument: Optional[str]
    key: Optional[str]

    def __init__(self, message: str, argument: Optional[str] = None, key: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.argument = argument
        self.key = key

    def __str__(self) -> str:
        return self.message


class InputError(PrivpostError, ValueError):
    """A value given is not allowed; the message says what is."""


class ArgumentTypeError(InputError, TypeError):
    """A value given is of a type the argument does not take."""


class PathNotFoundError(PrivpostError, FileNotFoundError):
    """A file or folder named does not exist (``filename`` is its path)."""


class PrivpostOSError(PrivpostError, OSError):
    """A file could not be read or written."""


class RunError(PrivpostError, RuntimeError):
    """The computation failed while running."""


class PrivpostWarning(UserWarning):
    """Something a careful user should know of an answer that was still given."""


class ConvergenceWarning(PrivpostWarning, RuntimeWarning):
    """MCMC chains that have not settled (R-hat above 1.01 or bulk ESS below 400)."""


class DepartureWarning(PrivpostWarning):
    """A released value lies where no dataset could put it: the model departs from the release."""


class AccountantWarning(PrivpostWarning):
    """An accountant's search ended at its cap: the answer is valid but may not be the smallest."""
