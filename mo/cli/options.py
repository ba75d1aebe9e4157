"""Conversion options: the command-line parser and the checked ``ConversionOptions`` that both
the CLI and ``convert_model`` produce."""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from mo.cli.input_spec import InputSpec, parse_input, parse_input_shape, parse_output
from mo.cli.preprocess_spec import parse_layouts, parse_values
from mo.errors import OptionError

COMPRESS_WEIGHTS_MODES = ("int8", "int4_sym", "int4_asym")
VALIDATE_PRECISIONS = ("f32", "bf16", "f16")
LOG_LEVELS = ("CRITICAL", "ERROR", "WARN", "WARNING", "INFO", "DEBUG", "NOTSET")


@dataclass
class ConversionOptions:
    """Everything one conversion needs to know, already parsed and checked."""

    input_model: Any = None
    output_dir: str = "."
    model_name: str | None = None
    framework: str | None = None
    # set by the conversion: what --compress_weights did, printed by the command line
    compression_summary: str | None = None
    inputs: list[InputSpec] = field(default_factory=list)
    input_shape: list[tuple] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    batch: int | None = None
    static_shape: bool = False
    log_level: str = "WARNING"
    silent: bool = True
    progress: bool = False
    stream_output: bool = False
    # --validate: run the IR and the source model on the same inputs and compare
    validate: bool = False
    validate_inputs: str | None = None
    validate_shapes: Any = None
    validate_tolerance: float | None = None
    # --validate_layers: compare every tensor the IR and the source model both have (mo/runtime/layers.py)
    validate_layers: bool = False
    validate_layers_csv: str | None = None
    # inference precision the IR is run with by --validate (the CPU plugin's default is bf16 where the CPU has it)
    validate_precision: str = "f32"
    # set by the conversion for --validate_layers: framework tensors the layout step kept only in
    # another dimension order, {(IR layer name, output port): {tensor name: permutation}}
    permuted_tensors: dict = field(default_factory=dict)
    # --transform: (name, arguments) of MakeStateful / LowLatency2
    transforms: list = field(default_factory=list)
    # --transformations_config: entries by id (mo/pipeline/subgraph.py)
    transformations_config: dict = field(default_factory=dict)
    extensions: list[str] = field(default_factory=list)
    compress_to_fp16: bool = True
    list_transforms: bool = False
    report: bool = False
    mean_values: dict = field(default_factory=dict)
    scale_values: dict = field(default_factory=dict)
    scale: float | None = None
    reverse_input_channels: bool = False
    layouts: dict = field(default_factory=dict)
    # Python API only: inputs to run a framework model object with while capturing its graph
    # (PyTorch: a tensor, a tuple/list of tensors or a dict of keyword tensors)
    example_input: Any = None
    # TensorFlow model forms
    input_model_is_text: bool = False
    saved_model_tags: list[str] = field(default_factory=list)
    saved_model_signature: str | None = None
    input_checkpoint: str | None = None
    # what the user gave, as text, for the IR's rt_info
    given: dict[str, str] = field(default_factory=dict)
    # --compress_weights: MatMul/embedding weights stored as int8 or int4 (extensions/back/compress_weights.py)
    compress_weights: str | None = None
    group_size: int = 128
    # a transformers decoder's key/value cache kept in variables (ReadValue/Assign, beam_idx input)
    stateful: bool = True
    # Python API: the tokenizer written beside a transformers model's IR (a transformers tokenizer
    # or a folder with its files); a checkpoint folder's own tokenizer files are used otherwise
    tokenizer: Any = None


def str2bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on", "y"):
        return True
    if text in ("0", "false", "no", "off", "n"):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean, got '{value}'")


class _Parser(argparse.ArgumentParser):
    """argparse with the converter's error contract: one [ ERROR ] line (and where to read the
    options, not the whole usage) and exit status 1."""

    def error(self, message):
        self.exit(1, f"[ ERROR ] {message}\nSee {self.prog} --help for the options.\n")


def build_parser() -> argparse.ArgumentParser:
    from mo.version import VERSION
    command = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    p = _Parser(
        prog="mo-convert" if command == "mo-convert" else "mo",
        description="Convert a trained model (ONNX, PyTorch, TensorFlow) to OpenVINO IR v11 (.xml + .bin). The "
                    "command is installed as both `mo` and `mo-convert` (openvino-dev installs a `mo` of its own; "
                    "`mo-convert` is always this one).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example: mo --input_model model.onnx --output_dir out --input \"x[1,3,224,224]{f32}\"")
    p.add_argument("model", nargs="?", metavar="INPUT_MODEL", help="The model to convert (the same as --input_model).")
    p.add_argument("--input_model", "-m", "-w", help="Model file to convert (.onnx; PyTorch: TorchScript .pt saved "
                   "with torch.jit.save, ExportedProgram .pt2 saved with torch.export.save, a transformers "
                   "checkpoint folder of config.json and safetensors files; TensorFlow: frozen "
                   ".pb/.pbtxt, SavedModel folder, .keras/.h5, .meta).")
    p.add_argument("--output_dir", "-o", help="Folder for the IR files (default: current folder).")
    p.add_argument("--output_model", help="Path of the IR's .xml file (OpenVINO's form): \"out/model.xml\" is "
                   "--output_dir out --model_name model.")
    p.add_argument("--model_name", "-n", help="Name of the IR files (default: the model file's name).")
    p.add_argument("--framework", choices=["onnx", "pytorch", "tf"],
                   help="Framework of the model (guessed from the file when absent).")
    p.add_argument("--input", "-i", help="Model inputs, each with optional shape and type: "
                   "\"x[1,3,224,224]{f32},mask[1,?]\". ? or -1 is a dynamic dimension, 1..8 (or ..8, 2..) a "
                   "bounded one, kept as such in the IR. Naming an inner tensor (a name, or node:0 for output 0 of "
                   "a node) cuts the graph there; 0:node cuts only input 0 of a node. A shape is optional.")
    p.add_argument("--input_shape", help="Shapes of the inputs in order: \"[1,3,224,224],[1,10]\".")
    p.add_argument("--output", help="Comma-separated tensor names where the graph is cut and its outputs are.")
    p.add_argument("--batch", "-b", type=int, help="Batch size: sets the first dimension of every input.")
    p.add_argument("--static_shape", action="store_true",
                   help="Fold shape computations for the given input shapes (the IR is then not reshapeable).")
    p.add_argument("--mean_values", help="Values subtracted from an input per channel: \"data[123.7,116.3,103.5]\" "
                   "or \"[123.7,116.3,103.5]\" for every input. Applied after --reverse_input_channels.")
    p.add_argument("--scale_values", help="Values an input is divided by per channel, after the mean: "
                   "\"data[58.4,57.1,57.4]\" or \"[255]\".")
    p.add_argument("--scale", "-s", type=float, help="One value every input is divided by (after the mean).")
    p.add_argument("--reverse_input_channels", type=str2bool, nargs="?", const=True, default=False,
                   help="Reverse the channel order of the inputs (RGB <-> BGR) before mean and scale.")
    p.add_argument("--layout", help="Layout of inputs, optionally with the layout the IR should take: "
                   "\"data(nhwc->nchw)\" or \"nchw\" for every input.")
    p.add_argument("--source_layout", help="Layout of the model's inputs: \"data(nhwc)\".")
    p.add_argument("--target_layout", help="Layout the IR's inputs should have (a Transpose is added): "
                   "\"data(nchw)\".")
    p.add_argument("--freeze_placeholder_with_value",
                   help="Replace inputs by constants: \"is_training->False,rate->[0.5]\".")
    tf = p.add_argument_group("TensorFlow")
    tf.add_argument("--input_model_is_text", action="store_true",
                    help="The frozen GraphDef given with --input_model is in text form (.pbtxt).")
    tf.add_argument("--saved_model_dir", help="SavedModel folder to convert (instead of --input_model).")
    tf.add_argument("--saved_model_tags", help="Comma-separated tags of the SavedModel's MetaGraph to load "
                    "(default: serve).")
    tf.add_argument("--saved_model_signature",
                    help="Signature of the SavedModel to convert (default: serving_default).")
    tf.add_argument("--input_meta_graph", help="MetaGraph (.meta) to convert, with the variables of its checkpoint.")
    tf.add_argument("--input_checkpoint", help="Checkpoint prefix of --input_meta_graph (default: the .meta path "
                    "without its suffix).")
    p.add_argument("--example_input", metavar="FILE.npz",
                   help="Example inputs of a PyTorch model, as arrays in a .npz file (named after forward's "
                        "arguments, or arr_0, arr_1... in order): a TorchScript file is traced with them.")
    p.add_argument("--extensions", action="append", default=[],
                   help="User extensions: a folder (same layout as extensions/), a single .py file, or a "
                        "comma-separated list of them; repeatable. Later ones replace earlier ones.")
    legacy = p.add_argument_group(
        "Legacy options", "Options of the legacy Model Optimizer and of OpenVINO's converter that have no effect "
        "here, accepted so that existing scripts run.")
    legacy.add_argument("--use_new_frontend", action="store_true",
                        help="Accepted and ignored: there is one frontend per framework.")
    legacy.add_argument("--share_weights", type=str2bool, nargs="?", const=True, default=None,
                        help="Accepted and ignored: weights are always read from the model file without a copy "
                             "(memory-mapped) and the IR's .bin holds its own.")
    legacy.add_argument("--tensorboard_logdir",
                        help="Not supported: use --report for the passes, and --log_level INFO for a summary "
                             "of the IR.")
    p.add_argument("--compress_to_fp16", type=str2bool, nargs="?", const=True, default=True,
                   help="Store float32 weights as float16, decompressed at run time (default: True; "
                        "--compress_to_fp16=False keeps float32).")
    p.add_argument("--log_level", default="WARNING", choices=LOG_LEVELS,
                   help="Logging level (default WARNING: warnings show). INFO prints a summary of the IR after "
                        "conversion (inputs, outputs, op counts, rewrites applied, weights); DEBUG adds per-pass "
                        "timings and tracebacks.")
    p.add_argument("--verbose", action="store_true", help="The same as --log_level INFO.")
    p.add_argument("--progress", action="store_true",
                   help="Show the conversion's progress on stderr: a bar on a terminal (step, pass, bytes of "
                        "weights written, elapsed time), plain lines otherwise.")
    p.add_argument("--stream_output", action="store_true",
                   help="With --progress: plain lines even on a terminal (the legacy multiline mode).")
    val = p.add_argument_group("Validation (needs the openvino package and the source framework)")
    val.add_argument("--validate", action="store_true",
                     help="After writing the IR, run it in the OpenVINO runtime and the model in its framework "
                          "(ONNX Runtime, TensorFlow, PyTorch) on the same inputs and print, per output, the max "
                          "absolute and relative difference with PASS/FAIL; exit status 2 when an output fails.")
    val.add_argument("--validate_inputs", metavar="FILE.npz",
                     help="Inputs for --validate: arrays named after the model's inputs (or arr_0, arr_1... in "
                          "order). Default: random values of each input's type and shape.")
    val.add_argument("--validate_shapes",
                     help="Sizes of dynamic dimensions for --validate: \"x[1,3,224,224],mask[1,16]\" or "
                          "\"[1,3,224,224]\" (default: the lower bound of a bounded dimension, else 1 for the first "
                          "dimension and 8 for the others).")
    val.add_argument("--validate_tolerance", type=float,
                     help="Largest allowed difference, relative to each output's largest magnitude (absolute "
                          "below 1). Default 1e-4, or 1e-2 when weights were compressed to fp16, 5e-2 (bf16) or "
                          "1e-2 (f16) with --validate_precision; with --compress_weights 1e-1 (int8) or 5e-1 "
                          "(int4), also below 1.")
    val.add_argument("--validate_layers", action="store_true",
                     help="With --validate (implied): also compare every intermediate tensor the IR and the source "
                          "model both have (same tensor name), in the model's topological order, and name the first "
                          "one beyond the tolerance with the framework op and node that made it, the IR ops it "
                          "became and its extractor and translator (file:line). --report prints every compared "
                          "tensor.")
    val.add_argument("--validate_layers_csv", metavar="FILE.csv",
                     help="With --validate_layers: write every compared tensor as a CSV table to FILE.csv.")
    val.add_argument("--validate_precision", choices=VALIDATE_PRECISIONS,
                     help="Inference precision the OpenVINO runtime runs the IR with for --validate (default f32). "
                          "With --validate_layers and bf16 or f16 every tensor is compared at f32 as well, which "
                          "tells a conversion error (beyond the tolerance at f32 too) from an effect of the "
                          "precision (within it at f32).")
    p.add_argument("--silent", type=str2bool, nargs="?", const=True, default=True,
                   help="Print only errors and the written file names (default: True).")
    p.add_argument("--transformations_config", metavar="FILE.json",
                   help="Sub-graph replacements in the legacy JSON form: [{\"id\": ..., \"match_kind\": \"scope\" or "
                        "\"points\", \"instances\": ..., \"custom_attributes\": {...}}]; each id runs the "
                        "SubgraphReplacement class of an --extensions folder whose replacement_id it is.")
    p.add_argument("--transform", help="Legacy transforms applied to the converted model: "
                   "\"MakeStateful[param_res_names={'state_in':'state_out'}]\" (the named input/output pairs become "
                   "a variable read by ReadValue and written by Assign; or param_res_pattern={'past.*':'present.*'} "
                   "pairing inputs with outputs by name, * standing for any text; beam_idx=True adding a beam_idx "
                   "input that reorders the states along batch_axis=0), \"LowLatency2\" or "
                   "\"LowLatency2[use_const_initializer=False]\" (LSTM/GRU/RNN sequence states kept between "
                   "inferences); comma-separated.")
    p.add_argument("--list_ops", action="store_true",
                   help="Print the op names a user pattern or rewrite can match (node.op), with the IR type each "
                        "is written as, and the framework op types handled (with --framework: of that one), and exit.")
    p.add_argument("--list_transforms", action="store_true", help="Print the transforms in run order and exit.")
    p.add_argument("--explain", metavar="OP", help="Print where an op is handled and exit: its extractor, translator "
                   "and the rewrites that match it, each with its file (onnx:Resize, tf:FusedBatchNormV3, "
                   "pytorch:aten::layer_norm, or an op such as Interpolate).")
    p.add_argument("--report", action="store_true",
                   help="Print the time and the ops added and removed of each pass, the total time and peak memory; "
                        "with --validate_layers, every compared tensor as a table.")
    p.add_argument("--compress_weights", choices=COMPRESS_WEIGHTS_MODES,
                   help="Store the weights of MatMul (and embedding Gather) layers as integers with per-channel or "
                        "per-group scales, decompressed at run time (data-free, no calibration): int8 (u8 with a "
                        "zero point per output channel), int4_sym (i4 per group of --group_size), int4_asym (u4 "
                        "with a zero point per group). In the int4 modes the embeddings and the last projection "
                        "(the logits) stay int8. The other float weights follow --compress_to_fp16.")
    p.add_argument("--group_size", type=int,
                   help="With --compress_weights int4_sym/int4_asym: weights per scale along the reduction axis "
                        "(default 128; -1: one scale per output channel). A weight whose reduction dimension it "
                        "does not divide is stored int8 per channel instead.")
    p.add_argument("--version", action="version", version=f"mo {VERSION}")
    p.add_argument("--stateful", type=str2bool, nargs="?", const=True, default=None,
                   help="A transformers decoder saved with its cache (past_key_values in, present out) keeps the "
                        "cache in variables, with a beam_idx input (default: True; --stateful False keeps "
                        "past_key_values.N.key/value inputs and present.N.key/value outputs).")
    return p


def _model_name(name: str | None) -> str | None:
    """--model_name names the IR files: a plain file name, the folder is --output_dir."""
    if name is None:
        return None
    name = str(name)
    if not name or name in (".", "..") or "/" in name or os.sep in name or "\0" in name:
        raise OptionError(f"--model_name '{name}' is not a file name: give the name without a folder "
                          f"(the folder is --output_dir).")
    return name


LEGACY_IGNORED = ("use_new_frontend", "share_weights")
NOT_RECORDED = ("list_transforms", "list_ops", "report", "explain", "progress", "stream_output", "validate",
                "validate_inputs", "validate_shapes", "validate_tolerance", "validate_layers", "validate_layers_csv",
                "validate_precision", "verbose") + LEGACY_IGNORED


def _legacy_forms(values: dict[str, Any]) -> None:
    """Options of the legacy Model Optimizer and OpenVINO's converter, turned into ours."""
    model = values.pop("model", None)
    if model is not None:
        if values.get("input_model") is not None and values["input_model"] != model:
            raise OptionError(f"Give the model once: '{model}' and --input_model '{values['input_model']}'.")
        values["input_model"] = model
    output_model = values.pop("output_model", None)
    if output_model is not None:
        path = os.fspath(output_model)
        if os.path.isdir(path) or path.endswith(("/", os.sep)):
            folder, name = path, None
        else:
            folder, base = os.path.split(path)
            name = base[:-4] if base.lower().endswith(".xml") else base
        for key, value in (("output_dir", folder or "."), ("model_name", name)):
            if value is not None and values.get(key) is not None and values[key] != value:
                raise OptionError(f"--output_model '{path}' and --{key} '{values[key]}' disagree: give one.")
            if value is not None:
                values[key] = value
    if values.pop("verbose", False) and str(values.get("log_level") or "WARNING").upper() not in ("DEBUG", "NOTSET"):
        values["log_level"] = "INFO"
    for key in LEGACY_IGNORED:
        values.pop(key, None)
    if values.pop("tensorboard_logdir", None) is not None:
        raise OptionError("--tensorboard_logdir is not supported: --report prints every pass with its time and the "
                          "ops it added and removed, and --log_level INFO a summary of the IR.")
    example = values.get("example_input")
    if isinstance(example, (str, os.PathLike)):
        values["example_input"] = load_npz(os.fspath(example), "--example_input")


def load_npz(path: str, option: str):
    """Arrays of a .npz file: a tuple when named arr_0, arr_1... (numpy's names for positional
    arrays), else a dict by name."""
    import numpy as np
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {k: stored[k] for k in stored.files}
    except (OSError, ValueError) as e:
        raise OptionError(f"{option} '{path}' is not a readable .npz file: {e}") from e
    if not arrays:
        raise OptionError(f"{option} '{path}' holds no arrays.")
    positional = [f"arr_{i}" for i in range(len(arrays))]
    if sorted(arrays) == sorted(positional):
        return tuple(arrays[k] for k in positional)
    return arrays


def make_options(values: dict[str, Any]) -> ConversionOptions:
    """Check and parse option values given by name (CLI namespace or convert_model kwargs)."""
    values = dict(values)
    known = set(ConversionOptions.__dataclass_fields__) | {"input", "output", "input_shape", "layout",
                                                            "source_layout", "target_layout",
                                                            "freeze_placeholder_with_value",
                                                            "saved_model_dir", "input_meta_graph", "model",
                                                            "output_model", "verbose", "tensorboard_logdir",
                                                            "transform", "list_ops"}
    known |= set(LEGACY_IGNORED)
    unknown = sorted(k for k in values if k not in known)
    if unknown:
        raise OptionError(f"Unknown option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}.")
    _legacy_forms(values)
    given = {k: _recorded(k, v) for k, v in values.items()
             if v is not None and not (isinstance(v, list) and not v) and k not in NOT_RECORDED}
    opts = ConversionOptions()
    opts.given = given
    opts.input_model = values.get("input_model")
    _tf_model_options(opts, values)
    opts.output_dir = values.get("output_dir")
    opts.progress = str2bool(values.get("progress", False))
    opts.stream_output = str2bool(values.get("stream_output", False))
    opts.validate_layers = str2bool(values.get("validate_layers", False))
    opts.validate = str2bool(values.get("validate", False)) or opts.validate_layers
    opts.validate_layers_csv = values.get("validate_layers_csv")
    if opts.validate_layers_csv is not None:
        opts.validate_layers_csv = os.fspath(opts.validate_layers_csv)
        opts.validate_layers = opts.validate = True
    precision = str(values.get("validate_precision") or "f32").lower()
    if precision not in VALIDATE_PRECISIONS:
        raise OptionError(f"--validate_precision must be one of {', '.join(VALIDATE_PRECISIONS)}, got {precision!r}.")
    opts.validate_precision = precision
    opts.validate_inputs = values.get("validate_inputs")
    opts.validate_shapes = values.get("validate_shapes")
    tolerance = values.get("validate_tolerance")
    if tolerance is not None:
        try:
            opts.validate_tolerance = float(tolerance)
        except (TypeError, ValueError):
            raise OptionError(f"--validate_tolerance must be a number, got {tolerance!r}.") from None
        if not opts.validate_tolerance >= 0:
            raise OptionError(f"--validate_tolerance must not be negative, got {tolerance!r}.")
    opts.model_name = _model_name(values.get("model_name"))
    opts.framework = values.get("framework") or opts.framework
    opts.example_input = values.get("example_input")
    opts.tokenizer = values.get("tokenizer")
    opts.inputs = parse_input(values.get("input"))
    frozen = values.get("freeze_placeholder_with_value")
    if frozen:
        for spec in parse_input(frozen):
            if spec.value is None or spec.name is None:
                raise OptionError(f"--freeze_placeholder_with_value needs name->value items, got '{frozen}'.")
            opts.inputs.append(spec)
    opts.mean_values = parse_values(values.get("mean_values"), "--mean_values")
    opts.scale_values = parse_values(values.get("scale_values"), "--scale_values")
    opts.scale = float(values["scale"]) if values.get("scale") is not None else None
    if opts.scale is not None and opts.scale == 0:
        raise OptionError("--scale must not be 0.")
    if any(v == 0 for vals in opts.scale_values.values() for v in vals):
        raise OptionError("--scale_values must not contain 0.")
    opts.reverse_input_channels = str2bool(values.get("reverse_input_channels", False))
    opts.layouts = parse_layouts(values.get("layout"), values.get("source_layout"), values.get("target_layout"))
    opts.input_shape = parse_input_shape(values.get("input_shape"))
    opts.outputs = parse_output(values.get("output"))
    opts.batch = values.get("batch")
    opts.static_shape = bool(values.get("static_shape", False))
    opts.log_level = str(values.get("log_level") or "WARNING").upper()
    opts.silent = str2bool(values.get("silent", True))
    opts.extensions = extension_paths(values.get("extensions"))
    opts.transforms = parse_transforms(values.get("transform"))
    config = values.get("transformations_config")
    if isinstance(config, (str, os.PathLike)):
        from mo.pipeline.subgraph import load_transformations_config
        opts.transformations_config = load_transformations_config(os.fspath(config))
    elif config:
        opts.transformations_config = {entry["id"]: entry for entry in config}
    opts.list_transforms = bool(values.get("list_transforms", False))
    opts.report = bool(values.get("report", False))
    if opts.log_level not in LOG_LEVELS:
        raise OptionError(f"Unknown --log_level '{opts.log_level}'; use one of {', '.join(LOG_LEVELS)}.")
    if opts.batch is not None and (not isinstance(opts.batch, int) or opts.batch <= 0):
        raise OptionError(f"--batch must be a positive integer, got {opts.batch!r}.")
    if opts.input_shape and opts.inputs and len(opts.input_shape) != len(opts.inputs):
        raise OptionError(f"--input_shape gives {len(opts.input_shape)} shapes but --input names "
                          f"{len(opts.inputs)} inputs.")
    if opts.input_model is None and not opts.list_transforms:
        raise OptionError("No model given: pass its path (mo model.onnx) or --input_model.")
    if isinstance(opts.input_model, os.PathLike):
        opts.input_model = os.fspath(opts.input_model)
    opts.compress_weights, opts.group_size = _weight_compression(values.get("compress_weights"),
                                                                 values.get("group_size"))
    # float weights go to f16 where the IR is written; an IR returned in memory keeps them f32
    # (IRModel.save compresses), as OpenVINO's convert_model and save_model do. --compress_weights
    # is a request for compressed storage: its scales are f16 in memory too.
    written = opts.output_dir is not None or bool(opts.compress_weights)
    opts.compress_to_fp16 = str2bool(values.get("compress_to_fp16", written))
    opts.stateful = str2bool(values.get("stateful", True))
    return opts


def _weight_compression(mode, group_size) -> tuple[str | None, int]:
    """--compress_weights and --group_size, checked: (mode or None, group size; -1 per channel)."""
    if mode is not None:
        mode = str(mode).strip().lower()
        if mode not in COMPRESS_WEIGHTS_MODES:
            raise OptionError(f"--compress_weights must be one of {', '.join(COMPRESS_WEIGHTS_MODES)}, got {mode!r}.")
    if group_size is None:
        return mode, 128
    if mode is None or not mode.startswith("int4"):
        raise OptionError("--group_size applies to int4 weight compression: give --compress_weights int4_sym or "
                          "int4_asym (int8 always has one scale per output channel).")
    try:
        size = int(str(group_size).strip()) if not isinstance(group_size, (bool, float)) else None
    except ValueError:
        size = None
    if size is None:
        raise OptionError(f"--group_size must be an integer, got {group_size!r}.")
    if size <= 0 and size != -1:
        raise OptionError(f"--group_size must be positive, or -1 for one scale per output channel; got {size}.")
    return mode, size


TRANSFORM_ARGUMENTS = {"MakeStateful": {"param_res_names": dict, "param_res_pattern": dict, "beam_idx": bool,
                                        "batch_axis": int},
                       "LowLatency2": {"use_const_initializer": bool}}


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return [p for p in parts if p]


def parse_transforms(value) -> list[tuple[str, dict]]:
    """--transform "MakeStateful[param_res_names={'a':'b'}],LowLatency2" (or, in Python, a list of
    names and (name, {arguments}) pairs) -> [(name, arguments)]."""
    import ast
    if value is None:
        return []
    items = _split_top(value) if isinstance(value, str) else list(value)
    result = []
    for item in items:
        if isinstance(item, str):
            name, _, rest = item.partition("[")
            name, args = name.strip(), {}
            if rest:
                if not rest.endswith("]"):
                    raise OptionError(f"Malformed --transform item '{item}': expected Name[key=value,...].")
                for pair in _split_top(rest[:-1]):
                    key, eq, text = pair.partition("=")
                    if not eq:
                        raise OptionError(f"Malformed argument '{pair}' of --transform {name}: expected key=value.")
                    try:
                        args[key.strip()] = ast.literal_eval(text.strip())
                    except (ValueError, SyntaxError):
                        args[key.strip()] = text.strip()
        else:
            name, args = item[0], dict(item[1]) if len(item) > 1 else {}
        known = TRANSFORM_ARGUMENTS.get(name)
        if known is None:
            raise OptionError(f"Unknown --transform '{name}': use {' or '.join(TRANSFORM_ARGUMENTS)}.")
        for key, arg in list(args.items()):
            if key not in known:
                raise OptionError(f"--transform {name} has no argument '{key}' (it takes {', '.join(known)}).")
            args[key] = str2bool(arg) if known[key] is bool else arg
            if known[key] is int and not isinstance(arg, int):
                raise OptionError(f"--transform {name}: {key} must be an integer, got {arg!r}.")
            if known[key] is dict and not (isinstance(arg, dict) and arg):
                raise OptionError(f"--transform {name}: {key} must be a dict of input name -> output name, "
                                  f"e.g. {name}[{key}={{'state_in':'state_out'}}].")
        if name == "MakeStateful" and "param_res_names" not in args and "param_res_pattern" not in args:
            raise OptionError("--transform MakeStateful needs param_res_names={'input':'output',...} or "
                              "param_res_pattern={'past.*':'present.*',...}.")
        result.append((name, args))
    return result


def extension_paths(value) -> list[str]:
    """--extensions values: folders or .py files, each possibly a comma-separated list."""
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value or [])
    paths = []
    for item in items:
        text = os.fspath(item)
        parts = [text] if os.path.exists(text) else [p.strip() for p in text.split(",")]
        paths.extend(p for p in parts if p)
    return paths


def _tf_model_options(opts: ConversionOptions, values: dict[str, Any]) -> None:
    """The TensorFlow model forms: --saved_model_dir and --input_meta_graph name the model
    instead of --input_model (and imply --framework tf)."""
    for option in ("saved_model_dir", "input_meta_graph"):
        path = values.get(option)
        if path is None:
            continue
        if opts.input_model is not None and opts.input_model != path:
            raise OptionError(f"Give the model once: --{option} and --input_model are both set.")
        opts.input_model = os.fspath(path)
        opts.framework = "tf"
    opts.input_model_is_text = str2bool(values.get("input_model_is_text", False))
    tags = values.get("saved_model_tags") or []
    opts.saved_model_tags = [t.strip() for t in tags.split(",") if t.strip()] if isinstance(tags, str) else list(tags)
    opts.saved_model_signature = values.get("saved_model_signature")
    opts.input_checkpoint = values.get("input_checkpoint")


# options that name files or folders: the IR's rt_info records their last component only (an IR
# is shared; the paths of the machine that converted it say nothing there)
PATH_OPTIONS = ("input_model", "output_dir", "extensions", "transformations_config", "saved_model_dir",
                "input_meta_graph", "input_checkpoint", "example_input", "tokenizer")


def _recorded(key: str, value: Any) -> str:
    """An option's value as the IR's rt_info records it."""
    if key in PATH_OPTIONS:
        paths = value if isinstance(value, (list, tuple)) else [value]
        if all(isinstance(v, (str, os.PathLike)) for v in paths):
            return ",".join(os.path.basename(os.path.normpath(os.fspath(v))) for v in paths)
    return _describe(value)


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ",".join(_describe(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}:{_describe(v)}" for k, v in value.items())
    if type(value).__name__ in ("ModelProto",):
        return "<ModelProto>"
    if (type(value).__module__ or "").split(".")[0] in ("tensorflow", "keras", "tf_keras"):
        return f"<{type(value).__name__}>"    # a framework model object: its repr says nothing useful
    if type(value).__module__.split(".")[0] in ("torch", "transformers", "numpy") or hasattr(value, "forward"):
        shape = getattr(value, "shape", None)   # a tensor: its shape; a model object: its class
        return f"<{type(value).__name__}{'' if shape is None else list(shape)}>"
    if isinstance(value, (int, float, os.PathLike)) or value is None:
        return str(value)
    return f"<{type(value).__name__}>"    # any other object: its repr may be huge (a captured graph)
