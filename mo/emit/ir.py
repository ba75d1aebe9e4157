"""Writes the final graph as IR v11: NAME.xml and NAME.bin, under temporary names first and
renamed into place at the end, so a failed run leaves no partial IR behind."""
from __future__ import annotations

import os
import tempfile

from mo.emit.bin_writer import BinWriter
from mo.emit.xml_writer import IRGraphWriter, write_rt_info, xml_escape

IR_VERSION = 11


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def emit_ir(graph, output_dir: str, model_name: str, rt_info: dict) -> tuple[str, str]:
    """Write ``graph`` to ``output_dir/model_name.{xml,bin}``; returns the two paths."""
    os.makedirs(output_dir, exist_ok=True)
    xml_path = os.path.join(output_dir, model_name + ".xml")
    bin_path = os.path.join(output_dir, model_name + ".bin")
    fd_bin, tmp_bin = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".bin.tmp", dir=output_dir)
    fd_xml, tmp_xml = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".xml.tmp", dir=output_dir)
    try:
        with os.fdopen(fd_bin, "wb") as bin_stream:
            writer = IRGraphWriter(BinWriter(bin_stream))
            out = ['<?xml version="1.0"?>\n', f'<net name="{xml_escape(model_name)}" version="{IR_VERSION}">\n']
            writer.write(graph, out, "\t")
            if rt_info:
                out.append("\t<rt_info>\n")
                write_rt_info(rt_info, out, "\t\t")
                out.append("\t</rt_info>\n")
            out.append("</net>\n")
        with os.fdopen(fd_xml, "w", encoding="utf-8") as xml_stream:
            xml_stream.write("".join(out))
        mode = 0o666 & ~_umask()
        os.chmod(tmp_bin, mode)
        os.chmod(tmp_xml, mode)
        os.replace(tmp_bin, bin_path)
        os.replace(tmp_xml, xml_path)
    except BaseException:
        for p in (tmp_bin, tmp_xml):
            if os.path.exists(p):
                os.unlink(p)
        raise
    return xml_path, bin_path
