"""Progress of long calls: a tqdm bar when tqdm is installed, or a
callable of the user's."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

#: What a progress argument may be: None (tqdm when installed), False or
#: True, or a callable(what, done, total).
Progress = Union[None, bool, Callable[[str, int, int], Any]]


def progress_callback(progress: Progress) -> Optional[Callable[[str, int, int], Any]]:
    """The callable(what, done, total) the extension calls, or None.

    Parameters
    ----------
    progress : None, bool or callable
        None or True: a tqdm bar on stderr when tqdm is installed, shown
        once the work has taken a second; False: none; a callable(what,
        done, total): called with the unit ("resamples", "laws", "layers",
        "rows"), the work done and its total (0 when unknown); raising in
        it stops the call with that exception.

    Returns
    -------
    callable or None

    Raises
    ------
    TypeError
        progress is none of these.
    """
    if progress is False:
        return None
    if callable(progress):
        return progress
    if progress is not None and progress is not True:
        raise TypeError("progress: expected None, False, True or a callable")
    try:
        import tqdm
    except ImportError:
        return None
    return _Tqdm(tqdm.tqdm)


class _Tqdm:
    """One bar a stage: a calibration tells of its resamples, then of the
    laws it compares, then of their resamples."""

    def __init__(self, factory: Callable[..., Any]) -> None:
        self._factory = factory
        self._bar: Any = None
        self._stage: Optional[tuple] = None

    def __call__(self, what: str, done: int, total: int) -> None:
        if self._bar is not None and self._stage != (what, total):
            self.close()
        if self._bar is None:
            self._stage = (what, total)
            self._bar = self._factory(total=total or None, unit=" " + what, delay=1.0,
                                      leave=False)
        self._bar.update(done - self._bar.n)
        if total and done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
