"""A check of a TorchScript archive's debug information before torch reads it.

torch reads the ``*.debug_pkl`` records (where each node's source text lies) lazily, in C++,
and trusts the indices in them: a damaged record crashes the process when a node's source range
is first asked for. Each record is parsed here first with an unpickler that builds only tuples,
lists, strings and numbers (no object of the file's choosing is ever constructed), and its
indices are checked against its own string table.

A record is ``("FORMAT_WITH_STRING_TABLE", strings, entries)``; an entry is
``(byte_offset, ((text_indices, file_index, first_line), start, end), debug_handle)``, every
index pointing into ``strings``.
"""
from __future__ import annotations

import io
import pickle
import zipfile

# The one callable such records name: it turns a list into torch's int list.
_INTLIST = ("torch.jit._pickle", "build_intlist")


class _RecordUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) == _INTLIST:
            return list
        raise pickle.UnpicklingError(f"it names {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("it refers to tensor data")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _entry_problem(entry, strings: tuple) -> str | None:
    if not (isinstance(entry, tuple) and len(entry) == 3 and _is_int(entry[0]) and isinstance(entry[1], tuple)
            and len(entry[1]) == 3):
        return "an entry is not (offset, range, handle)"
    source, start, end = entry[1]
    if not (isinstance(source, tuple) and len(source) == 3 and isinstance(source[0], list)):
        return "a source is not (text, file, line)"
    indices, file_index, first_line = source
    if not all(_is_int(i) and 0 <= i < len(strings) for i in [*indices, file_index]):
        return "an index lies outside its string table"
    if not (_is_int(first_line) and first_line >= 0 and _is_int(start) and _is_int(end) and 0 <= start <= end):
        return "a line or position is not a number in order"
    return None


def record_problem(data: bytes) -> str | None:
    """What is wrong with one ``.debug_pkl`` record, or None."""
    try:
        record = _RecordUnpickler(io.BytesIO(data)).load()
    except Exception as e:    # any malformed pickle stream
        return f"it is not a readable record ({e})"
    if not (isinstance(record, tuple) and len(record) == 3 and record[0] == "FORMAT_WITH_STRING_TABLE"
            and isinstance(record[1], tuple) and all(isinstance(s, str) for s in record[1])
            and isinstance(record[2], tuple)):
        return "it is not a string-table record"
    for entry in record[2]:
        problem = _entry_problem(entry, record[1])
        if problem:
            return problem
    return None


def debug_info_problem(archive: zipfile.ZipFile) -> str | None:
    """'entry: what is wrong' for the first damaged debug record of ``archive``, or None."""
    for info in archive.infolist():
        if info.filename.endswith(".debug_pkl"):
            problem = record_problem(archive.read(info))
            if problem:
                return f"{info.filename}: {problem}"
    return None
