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


def emit_ir(graph, output_dir: str, model_name: str, rt_info: dict, progress=None, total: int = 0,
            permuted: dict | None = None) -> tuple[str, str]:
    """Write ``graph`` to ``output_dir/model_name.{xml,bin}``; returns the two paths.

    Both files are written under temporary names first. The old ``.xml`` goes before the new
    ``.bin`` takes its place, so a crash at any moment leaves the old IR, the new one, or no
    ``.xml`` at all, never an old ``.xml`` beside a new ``.bin``. Temporary files an earlier,
    killed run left for the same name are removed. A folder that cannot be written is an
    OutputError. ``progress`` (a ``mo.pipeline.progress.Progress``) is told the bytes written
    out of ``total``. ``permuted`` (a dict) is filled as ``render_ir`` fills it."""
    try:
        return _emit(graph, output_dir, model_name, rt_info, progress, total, permuted)
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


def render_ir(graph, model_name: str, rt_info: dict, bin_stream, placed: list | None = None,
              permuted: dict | None = None) -> str:
    """Write the weights of ``graph`` to ``bin_stream`` and return the IR's XML text; ``placed``
    (a list) receives (Const node, offset, size) of each constant. A ``permuted`` dict is filled
    with the permuted names of the model's layers (not written in the IR): {(layer name, output
    port): {framework tensor name: permutation}}."""
    writer = IRGraphWriter(BinWriter(bin_stream), placed)
    writer.permuted = permuted
    writer.top = graph
    out = ['<?xml version="1.0"?>\n', f'<net name="{xml_escape(model_name)}" version="{IR_VERSION}">\n']
    writer.write(graph, out, "\t")
    if rt_info:
        out.append("\t<rt_info>\n")
        write_rt_info(rt_info, out, "\t\t")
        out.append("\t</rt_info>\n")
    out.append("</net>\n")
    return "".join(out)


def _emit(graph, output_dir: str, model_name: str, rt_info: dict, progress, total: int,
          permuted: dict | None) -> tuple[str, str]:
    def produce(stream):
        if progress is not None:
            from mo.pipeline.progress import CountingStream
            stream = CountingStream(stream, progress, total)
        return render_ir(graph, model_name, rt_info, stream, permuted=permuted)
    return write_ir_files(output_dir, model_name, produce)


def write_ir_files(output_dir: str, model_name: str, produce) -> tuple[str, str]:
    """Write ``output_dir/model_name.{xml,bin}``: ``produce(bin_stream)`` writes the weights and
    returns the XML text. Temporary names first, renamed into place (see ``emit_ir``)."""
    os.makedirs(output_dir, exist_ok=True)
    remove_stale_temporaries(output_dir, model_name)
    xml_path = os.path.join(output_dir, model_name + ".xml")
    bin_path = os.path.join(output_dir, model_name + ".bin")
    temporaries = []
    try:
        fd_bin, tmp_bin = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".bin.tmp", dir=output_dir)
        temporaries.append(tmp_bin)
        with os.fdopen(fd_bin, "wb") as bin_stream:
            xml_text = produce(bin_stream)
        fd_xml, tmp_xml = tempfile.mkstemp(prefix=f".{model_name}.", suffix=".xml.tmp", dir=output_dir)
        temporaries.append(tmp_xml)
        with os.fdopen(fd_xml, "w", encoding="utf-8") as xml_stream:
            xml_stream.write(xml_text)
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


def save_ir(output_dir: str, model_name: str, xml_text: str, weights: bytes) -> tuple[str, str]:
    """Write an IR held in memory, with the same guarantees as ``emit_ir``."""
    def produce(stream):
        stream.write(weights)
        return xml_text
    try:
        return write_ir_files(output_dir, model_name, produce)
    except OSError as e:
        raise OutputError(f"Cannot write the IR to the folder '{output_dir}': {_reason(e)}.") from e
