"""Writes the final graph as IR v11: NAME.xml and NAME.bin, under temporary names first and
renamed into place at the end, so a failed run leaves no partial IR behind."""
from __future__ import annotations

import errno
import os
import tempfile

from mo.emit.bin_writer import BinWriter
from mo.emit.xml_writer import IRGraphWriter, write_rt_info, xml_escape
from mo.errors import OutputError

IR_VERSION = 11


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def emit_ir(graph, output_dir: str, model_name: str, rt_info: dict) -> tuple[str, str]:
    """Write ``graph`` to ``output_dir/model_name.{xml,bin}``; returns the two paths.

    Both files are written under temporary names first. The old ``.xml`` goes before the new
    ``.bin`` takes its place, so a crash at any moment leaves the old IR, the new one, or no
    ``.xml`` at all, never an old ``.xml`` beside a new ``.bin``. Temporary files an earlier,
    killed run left for the same name are removed. A folder that cannot be written is an
    OutputError."""
    try:
        return _emit(graph, output_dir, model_name, rt_info)
    except OSError as e:
        raise OutputError(f"Cannot write the IR to the folder '{output_dir}': {_reason(e)}.") from e


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "the disk is full"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "no permission to write there (choose another --output_dir)"
    if e.errno in (errno.EEXIST, errno.ENOTDIR):
        return "a file of that name is in the way: --output_dir must name a folder"
    return e.strerror or str(e)


def remove_stale_temporaries(output_dir: str, model_name: str) -> None:
    """Delete ``.NAME.*.bin.tmp`` / ``.NAME.*.xml.tmp`` files a killed run left behind."""
    prefix = f".{model_name}."
    for entry in os.listdir(output_dir):
        if entry.startswith(prefix) and entry.endswith((".bin.tmp", ".xml.tmp")):
            try:
                os.unlink(os.path.join(output_dir, entry))
            except FileNotFoundError:
                pass


def _emit(graph, output_dir: str, model_name: str, rt_info: dict) -> tuple[str, str]:
    os.makedirs(output_dir, exist_ok=True)
    remove_stale_temporaries(output_dir, model_name)
    xml_path = os.path.join(output_dir, model_name + ".xml")
    bin_path = os.path.join(output_dir, model_name + ".bin")
    temporaries = []
    try:
        fd_bin, tmp_bin = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".bin.tmp", dir=output_dir)
        temporaries.append(tmp_bin)
        with os.fdopen(fd_bin, "wb") as bin_stream:
            writer = IRGraphWriter(BinWriter(bin_stream))
            out = ['<?xml version="1.0"?>\n', f'<net name="{xml_escape(model_name)}" version="{IR_VERSION}">\n']
            writer.write(graph, out, "\t")
            if rt_info:
                out.append("\t<rt_info>\n")
                write_rt_info(rt_info, out, "\t\t")
                out.append("\t</rt_info>\n")
            out.append("</net>\n")
        fd_xml, tmp_xml = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".xml.tmp", dir=output_dir)
        temporaries.append(tmp_xml)
        with os.fdopen(fd_xml, "w", encoding="utf-8") as xml_stream:
            xml_stream.write("".join(out))
        mode = 0o666 & ~_umask()
        os.chmod(tmp_bin, mode)
        os.chmod(tmp_xml, mode)
        if os.path.lexists(xml_path):
            os.unlink(xml_path)          # no moment with an old .xml beside the new .bin
        os.replace(tmp_bin, bin_path)
        os.replace(tmp_xml, xml_path)
    except BaseException:
        for p in temporaries:
            if os.path.exists(p):
                os.unlink(p)
        raise
    return xml_path, bin_path
