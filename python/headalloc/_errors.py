"""The exceptions and the warning category of headalloc.

Every failure of the library arrives as a :class:`Error` subclass chosen
by its status, carrying the library's one-line message and, for a failure
in a file's contents, the file, line and column (1-based; 0 when not
applicable).  A bad value of an argument is an :class:`InputError` with
the words the command line uses for the same value; an argument of the
wrong type is a :class:`TypeError`, as in NumPy.
"""

from __future__ import annotations

from typing import NoReturn, Optional

__all__ = ["Error", "InputError", "InfeasibleError", "FileError",
           "NumericError", "UnsupportedError", "HeadallocWarning"]


class Error(Exception):
    """A failure reported by headalloc.

    Attributes
    ----------
    status : str or None
        The library's status name (``"invalid"``, ``"io"``, ...).
    message : str
        The one-line message.
    file : str or None
        The file at fault, when the failure is in a file's contents.
    line, column : int
        1-based position in that file; 0 when not applicable.
    """

    def __init__(self, message: str, file: Optional[str] = None, line: int = 0,
                 column: int = 0, status: Optional[str] = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.status = status
        super().__init__(message)

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line:
                where += ":%d" % self.line
                if self.column:
                    where += ":%d" % self.column
            where += ": "
        return where + self.message


class InputError(Error, ValueError):
    """Invalid input: an argument out of its domain or malformed file
    contents (the command line's usage errors)."""


class UnsupportedError(InputError):
    """Valid input that this version cannot handle (a dtype, a format)."""


class InfeasibleError(Error):
    """No allocation meets the constraints."""


class FileError(Error, OSError):
    """Reading or writing a file failed, or replacing a file was refused
    (it is read-only, or another user's)."""


class NumericError(Error, ArithmeticError):
    """A numerical method failed to converge."""


class HeadallocWarning(UserWarning):
    """A caution from headalloc (a calibration's warnings, an HDI's rank
    deficiency ...), issued with :func:`warnings.warn`."""


# enum ha_status (include/headalloc/status.h): value -> class.
_BY_STATUS = {
    1: ("invalid", InputError),
    3: ("infeasible", InfeasibleError),
    4: ("numeric", NumericError),
    5: ("io", FileError),
    6: ("format", InputError),
    7: ("unsupported", UnsupportedError),
    8: ("degenerate", InputError),
    9: ("canceled", Error),
}


def from_status(status: int, message: str, file: Optional[str] = None, line: int = 0,
                column: int = 0) -> Error:
    """The exception for a library status (used by the extension)."""
    name, cls = _BY_STATUS.get(status, ("error", Error))
    return cls(message, file=file, line=line, column=column, status=name)


def bad_value(name: str, value: object, expected: str) -> NoReturn:
    """Raise the InputError of the command line's words for a bad value:
    ``"NAME: invalid value VALUE: expected EXPECTED"``."""
    raise InputError("%s: invalid value %r: expected %s" % (name, value, expected))
