"""The weights of an IR converted in memory (``convert_model(output_dir=None)``), in one
anonymous memory map instead of a ``BytesIO``.

The map is allocated at the size the weights will take, with its pages populated up front
where the platform can (``MAP_POPULATE``: one system call instead of a page fault per 4 KiB
while 400 MB of weights are copied in, about a quarter less time), and it starts on a page
boundary, so a constant whose offset is aligned is aligned in memory too (the OpenVINO CPU
plugin compiles aligned constants faster). ``getbuffer()`` hands the bytes written out as a
writable memoryview without copying them, which the OpenVINO runtime can use in place.
"""
from __future__ import annotations

import mmap


def _anonymous_map(size: int) -> mmap.mmap:
    size = max(size, 1)          # a map cannot be empty
    flags = getattr(mmap, "MAP_PRIVATE", None)
    if flags is None:            # Windows: no flags
        return mmap.mmap(-1, size)
    return mmap.mmap(-1, size, flags=flags | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0))


class WeightsBuffer:
    """A write-only binary stream into an anonymous memory map of ``capacity`` bytes; writing
    more than that moves the bytes to a larger map."""

    def __init__(self, capacity: int):
        self.map = _anonymous_map(capacity)
        self.size = 0

    def write(self, data) -> int:
        with memoryview(data) as given, given.cast("B") as view:
            end = self.size + view.nbytes
            if end > len(self.map):
                self._grow(max(end, 2 * len(self.map)))
            with memoryview(self.map) as target:
                target[self.size:end] = view
            self.size = end
            return view.nbytes

    def _grow(self, size: int) -> None:
        grown = _anonymous_map(size)
        with memoryview(grown) as target, memoryview(self.map) as source:
            target[:self.size] = source[:self.size]
        self.map.close()
        self.map = grown

    def getbuffer(self) -> memoryview:
        """The bytes written (writable, not a copy); no more writes after this."""
        if self.size < len(self.map):   # give back what was allocated for de-duplicated constants
            try:
                self.map.resize(max(self.size, 1))
            except (OSError, SystemError, ValueError, TypeError):   # not on every platform
                pass
        return memoryview(self.map)[:self.size]
