"""Command-line entry: parse arguments, run the conversion, report errors without tracebacks."""
from __future__ import annotations

import logging
import os
import sys
import time
import traceback

from mo.errors import ConversionError


def setup_logging(level: str) -> None:
    level = {"WARN": "WARNING"}.get(level, level)
    logging.basicConfig(format="[ %(levelname)s ] %(message)s", level=getattr(logging, level, logging.ERROR))
    logging.getLogger("mo").setLevel(getattr(logging, level, logging.ERROR))


def main(argv: list[str] | None = None) -> int:
    from mo.cli.options import build_parser, make_options
    from mo.pipeline.convert import convert, transform_order
    from mo.registry import Registry

    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.log_level)
    debug = args.log_level == "DEBUG"
    started = time.perf_counter()
    try:
        values = {k: v for k, v in vars(args).items() if k != "version"}
        if args.explain:
            from mo.pipeline.explain import explain
            print(explain(args.explain, Registry.build(values.get("extensions"))))
            return 0
        if args.list_transforms:
            registry = Registry.build(values.get("extensions"))
            print("\n".join(transform_order(registry, args.framework or "onnx")))
            return 0
        if not values.get("extensions"):
            values.pop("extensions")
        opts = make_options({k: v for k, v in values.items() if v is not None})
        paths = convert(opts)
    except ConversionError as e:
        if debug:
            traceback.print_exc()
        print(f"[ ERROR ] {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise        # the reader of our output went away: entry() ends quietly
    except KeyboardInterrupt:
        print("[ ERROR ] Interrupted.", file=sys.stderr)
        return 1
    except Exception as e:  # a converter bug: say so, keep the trace for --log_level DEBUG
        if debug:
            traceback.print_exc()
        print(f"[ ERROR ] Conversion failed with an internal error: {type(e).__name__}: {e}\n"
              f"Run with --log_level DEBUG for the traceback and report it.", file=sys.stderr)
        return 1
    print(f"[ SUCCESS ] XML file: {paths.xml}")
    print(f"[ SUCCESS ] BIN file: {paths.bin}")
    if not opts.silent:
        print(f"[ INFO ] Conversion took {time.perf_counter() - started:.2f} s")
    return 0


def entry() -> None:
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # stdout was closed by its reader (`mo ... | head`): what it read is all it wanted, and
        # output goes to stdout only once the work is done; stop without a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
