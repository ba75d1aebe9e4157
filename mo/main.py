"""Command-line entry: parse arguments, run the conversion, report errors without tracebacks."""
from __future__ import annotations

import logging
import os
import sys
import time
import traceback

from mo.errors import ConversionError


def setup_logging(level: str) -> None:
    """The CLI's logging: ``[ LEVEL ] message`` on stderr for the "mo" logger at ``level``
    (default WARNING, so warnings show); other libraries' loggers stay at ERROR."""
    level = {"WARN": "WARNING"}.get(level, level)
    logging.basicConfig(format="[ %(levelname)s ] %(message)s", level=logging.ERROR)
    logging.getLogger("mo").setLevel(getattr(logging, level, logging.WARNING))


def main(argv: list[str] | None = None) -> int:
    from mo.cli.options import build_parser, make_options
    from mo.pipeline.convert import convert, transform_order
    from mo.registry import Registry

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose and args.log_level not in ("DEBUG", "NOTSET"):
        args.log_level = "INFO"
    setup_logging(args.log_level)
    debug = args.log_level == "DEBUG"
    started = time.perf_counter()
    stage = "Conversion"
    try:
        values = {k: v for k, v in vars(args).items() if k != "version"}
        if args.explain:
            from mo.pipeline.explain import explain
            print(explain(args.explain, Registry.build(values.get("extensions"))))
            return 0
        if args.list_ops:
            from mo.pipeline.explain import list_ops
            print(list_ops(Registry.build(values.get("extensions")), args.framework))
            return 0
        if args.list_transforms:
            registry = Registry.build(values.get("extensions"))
            print("\n".join(transform_order(registry, args.framework or "onnx")))
            return 0
        if not values.get("extensions"):
            values.pop("extensions")
        if values.get("output_dir") is None and values.get("output_model") is None:
            values["output_dir"] = "."
        opts = make_options({k: v for k, v in values.items() if v is not None})
        paths = convert(opts)
        took = time.perf_counter() - started
        print(f"[ SUCCESS ] XML file: {paths.xml}")
        print(f"[ SUCCESS ] BIN file: {paths.bin}")
        if opts.compression_summary and not logging.getLogger("mo").isEnabledFor(logging.INFO):
            print(f"[ INFO ] {opts.compression_summary}")
        sys.stdout.flush()
        if opts.validate:
            from mo.runtime.validate import ValidationFailed, validate_conversion
            stage = "Validation"
            try:
                validated = validate_conversion(opts, paths, opts.framework)
            except ValidationFailed as e:
                print("\n".join(e.report.lines()))
                print(f"[ ERROR ] {e}", file=sys.stderr)
                return 2
            print("\n".join(validated.lines()))
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
        print(f"[ ERROR ] {stage} failed with an internal error: {type(e).__name__}: {e}\n"
              f"Run with --log_level DEBUG for the traceback and report it.", file=sys.stderr)
        return 1
    if not opts.silent or logging.getLogger("mo").isEnabledFor(logging.INFO):
        print(f"[ INFO ] Conversion took {took:.2f} s")
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
