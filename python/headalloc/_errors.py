"""The exceptions and the warning category of headalloc.

Every failure of the library arrives as a :class:`Error` subclass chosen
by its status, carrying the library's one-line message and, for a failure
in a file's contents, the file, line and column (1-based; 0 when not
applicable).
"""

__all__ = ["Error", "InputError", "InfeasibleError", "IOError",
           "NumericError", "UnsupportedError", "HeadallocWarning"]

_builtin_oserror = OSError


class Error(Exception):
    """A failure reported by headalloc.

    Attributes: ``status`` (the library's status name, e.g. ``"invalid"``),
    ``message``, ``file`` (or None), ``line`` and ``column`` (0 when not
    applicable).
    """

    def __init__(self, message, file=None, line=0, column=0, status=None):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.status = status
        super().__init__(message)

    def __str__(self):
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
    contents (exit status 2 of the CLI)."""


class UnsupportedError(InputError):
    """Valid input that this version cannot handle (a dtype, a format)."""


class InfeasibleError(Error):
    """No allocation meets the constraints (exit status 3 of the CLI)."""


class IOError(Error, _builtin_oserror):
    """Reading or writing a file failed."""


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
    5: ("io", IOError),
    6: ("format", InputError),
    7: ("unsupported", UnsupportedError),
    8: ("degenerate", InputError),
    9: ("canceled", Error),
}


def from_status(status, message, file=None, line=0, column=0):
    """The exception for a library status (used by the extension)."""
    name, cls = _BY_STATUS.get(status, ("error", Error))
    return cls(message, file=file, line=line, column=column, status=name)
