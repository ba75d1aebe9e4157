"""--progress: where a conversion is, on stderr.

On a terminal, one line redrawn in place: a bar over the conversion's steps, the step, the pass
or node it is at, the bytes of a model file read (TensorFlow GraphDefs; ONNX weights are mapped,
not read, until they are written) and of the weights written, and the time since the start. Elsewhere
(a log file, a pipe, CI), plain lines: one when a step starts, and for the weights one at each
quarter of the bytes. Without --progress every call is a no-op (``NO_PROGRESS``).
"""
from __future__ import annotations

import os
import sys
import time

STEPS = ("load", "extract", "front", "translate", "middle", "back", "emit")
BAR = 24
REDRAW_S = 0.1


def human_bytes(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


class NoProgress:
    """The default: reports nothing."""

    def step(self, name: str, total: int = 0, detail: str = "") -> None:
        pass

    def advance(self, label: str = "") -> None:
        pass

    def bytes(self, done: int, total: int, verb: str = "written") -> None:
        pass

    def finish(self) -> None:
        pass


NO_PROGRESS = NoProgress()


class Progress(NoProgress):
    """Progress of one conversion written to ``stream`` (a terminal: a redrawn bar)."""

    def __init__(self, stream=None, interactive: bool | None = None):
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.started = time.perf_counter()
        self.name = ""
        self.index = 0
        self.total = 0
        self.done = 0
        self.label = ""
        self.detail = ""
        self.written = (0, 0)
        self._quarter = 0
        self._drawn = 0.0
        self._width = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def step(self, name: str, total: int = 0, detail: str = "") -> None:
        self.name = name
        self.index = STEPS.index(name) + 1 if name in STEPS else self.index
        self.total, self.done, self.label, self.detail = total, 0, "", detail
        self.written, self._quarter = (0, 0), 0
        if self.interactive:
            self._draw(force=True)
        else:
            what = f" ({detail})" if detail else (f" ({total} passes)" if total and name != "translate" else "")
            self._line(f"{self.index}/{len(STEPS)} {name}{what} at {self.elapsed():.1f} s")

    def advance(self, label: str = "") -> None:
        self.done += 1
        self.label = label
        if self.interactive:
            self._draw()

    def bytes(self, done: int, total: int, verb: str = "written") -> None:
        """Bytes of weights read (load) or written (emit) so far in this step."""
        self.written = (done, total)
        if self.interactive:
            self._draw(force=done >= total)
            return
        quarter = 4 * done // total if total else 4
        if quarter > self._quarter:
            self._quarter = quarter
            self._line(f"{self.index}/{len(STEPS)} {self.name}: {human_bytes(done)} of {human_bytes(total)} "
                       f"{verb} at {self.elapsed():.1f} s")

    def finish(self) -> None:
        if self.interactive:
            self.index, self.name, self.label, self.detail, self.total = len(STEPS), "done", "", "", 0
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
        else:
            self._line(f"done in {self.elapsed():.1f} s")

    def _line(self, text: str) -> None:
        self.stream.write(f"[ PROGRESS ] {text}\n")
        self.stream.flush()

    def _fraction(self) -> float:
        within = 0.0
        if self.written[1]:
            within = self.written[0] / self.written[1]
        elif self.total:
            within = min(self.done / self.total, 1.0)
        return min(1.0, (self.index - 1 + within) / len(STEPS)) if self.name != "done" else 1.0

    def _draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._drawn < REDRAW_S:
            return
        self._drawn = now
        filled = int(round(self._fraction() * BAR))
        parts = [f"[{'#' * filled}{'-' * (BAR - filled)}] {self.index}/{len(STEPS)} {self.name}"]
        if self.detail:
            parts.append(self.detail)
        if self.total:
            parts.append(f"{self.done}/{self.total}" + (f" {self.label}" if self.label else ""))
        if self.written[1]:
            parts.append(f"{human_bytes(self.written[0])}/{human_bytes(self.written[1])}")
        parts.append(f"{self.elapsed():.1f} s")
        text = "  ".join(parts)
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns or 100
        except (OSError, ValueError, AttributeError):
            columns = 100
        text = text[: max(columns - 1, 20)]
        self.stream.write("\r" + text + " " * max(self._width - len(text), 0))
        self._width = len(text)
        self.stream.flush()


class CountingStream:
    """A binary stream wrapper that reports the bytes written through it to a Progress."""

    def __init__(self, stream, progress: NoProgress, total: int):
        self.stream = stream
        self.progress = progress
        self.total = max(total, 1)
        self.count = 0

    def write(self, data) -> int:
        written = self.stream.write(data)
        self.count += memoryview(data).nbytes
        self.progress.bytes(min(self.count, self.total), self.total)
        return written
