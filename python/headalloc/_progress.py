"""Progress of long calls: a tqdm bar when tqdm is installed, or a
callable of the user's."""


def progress_callback(progress):
    """The callable(what, done, total) the extension calls, or None.

    progress: None (a tqdm bar on stderr when tqdm is installed, shown
    once the work has taken a second, as the CLI's line), False (none), or
    a callable(what, done, total) — what is the unit ("resamples",
    "layers", "rows"), total 0 when unknown; raising in it stops the call.
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
    def __init__(self, factory):
        self._factory = factory
        self._bar = None

    def __call__(self, what, done, total):
        if self._bar is None:
            self._bar = self._factory(total=total or None, unit=" " + what, delay=1.0,
                                      leave=False)
        self._bar.update(done - self._bar.n)
        if total and done >= total:
            self.close()

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
