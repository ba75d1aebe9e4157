"""Registry of loaders, extractors, ops and transforms, built anew for each conversion.

Classes and translators are found in the modules of the built-in ``extensions`` package and of
each user ``--extensions`` folder: every class *defined* in one of those modules that derives
from ``Loader``, ``Extractor``, ``Op`` or ``Transform`` and is not marked ``abstract = True``,
and every function marked with ``@translator`` (``mo/front/translator.py``), is registered.
User folders come after the built-in package, so a user class for an op type, a framework op or
a transform name that the project already has replaces it, and a user translator replaces the
built-in one. A framework op whose extractor comes from a later folder than its translator is
not translated: the user's extractor decides what it becomes.

Nothing is stored globally: two conversions in one process each build their own Registry (the
imported modules are cached by Python, but the tables are per conversion).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import logging
import os
import pkgutil
import sys
from types import ModuleType
from typing import Callable

import networkx as nx

from mo.errors import ExtensionError
from mo.front.extractor import Extractor
from mo.front.loader import Loader
from mo.front.translator import translator_keys
from mo.ops.op import Op
from mo.pipeline.transform import PHASES, Transform
from mo.utils.origin import USER_PACKAGE_PREFIX, class_origin

_BASES = (Loader, Extractor, Op, Transform)
log = logging.getLogger("mo")


# The built-in package (loaders, extractors, translators, ops, transforms) is found by its name,
# as a user's folder is by its path: the engine imports nothing from it (mo/__init__.py makes the
# name mean the folder installed beside mo).
BUILTIN_PACKAGE = "extensions"


def _builtin_modules() -> list[ModuleType]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    modules = []
    names = sorted(m.name for m in pkgutil.walk_packages(package.__path__, BUILTIN_PACKAGE + "."))
    for name in names:
        modules.append(importlib.import_module(name))
    return modules


def _package(name: str, folder: str) -> None:
    """A package module ``name`` over ``folder`` in sys.modules (no code run), so that the files
    of a user's extensions can import each other: ``from .helpers import f``,
    ``from ..ops.my_op import MyOp``."""
    if name in sys.modules:
        return
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [folder]
    module = importlib.util.module_from_spec(spec)
    module.__path__ = [folder]
    sys.modules[name] = module


def _user_modules(path: str) -> list[ModuleType]:
    """The modules of a user's extensions: every .py file of a folder (subfolders included), or a
    single .py file. Each folder is a package named ``mo_user_ext_<hash>``, so relative imports
    between its files work."""
    path = os.path.abspath(path)
    if os.path.isfile(path):
        if not path.endswith(".py"):
            raise ExtensionError(f"Extension file '{path}' is not a Python (.py) file.")
        folder, files = os.path.dirname(path), [path]
    elif os.path.isdir(path):
        folder, files = path, []
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            files.extend(os.path.join(root, n) for n in sorted(names)
                         if n.endswith(".py") and not n.startswith("__"))
    else:
        raise ExtensionError(f"Extensions folder or file '{path}' does not exist.")
    package = USER_PACKAGE_PREFIX + hashlib.sha1(folder.encode()).hexdigest()[:10]
    _package(package, folder)
    modules = []
    for path in files:
        rel = os.path.relpath(path, folder)[:-3].split(os.sep)
        for depth in range(1, len(rel)):
            _package(".".join([package] + rel[:depth]), os.path.join(folder, *rel[:depth]))
        mod_name = ".".join([package] + rel)
        if mod_name in sys.modules:
            modules.append(sys.modules[mod_name])
            continue
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            sys.modules[mod_name] = module
            spec.loader.exec_module(module)
        except Exception as e:  # a user's code may raise anything
            sys.modules.pop(mod_name, None)
            raise ExtensionError(f"Cannot load extension file '{path}': {type(e).__name__}: {e}") from e
        modules.append(module)
    return modules


def _classes(module: ModuleType) -> list:
    """Registrable classes and translator functions defined in ``module``, in definition order."""
    found = []
    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            if issubclass(obj, _BASES) and not obj.__dict__.get("abstract", False):
                found.append(obj)
        elif inspect.isfunction(obj) and translator_keys(obj):
            found.append(obj)
    return found


_BUILTIN_CACHE: list[type] | None = None


def builtin_classes() -> list:
    """Anchors and the classes of the built-in extensions package, in discovery order (cached:
    classes only, no per-conversion state)."""
    global _BUILTIN_CACHE
    if _BUILTIN_CACHE is None:
        from mo.pipeline import anchors
        _BUILTIN_CACHE = _classes(anchors) + [c for m in _builtin_modules() for c in _classes(m)]
    return list(_BUILTIN_CACHE)


def op_key(op_type: str, domain: str = "") -> str:
    """The registry key of a framework op type: ``domain::Type`` for an ONNX domain."""
    return f"{domain}::{op_type}" if domain else op_type


class Registry:
    """Tables of one conversion: ops by name, extractors and translators by (framework, op
    type), loaders by framework, and transforms per phase in run order.

    ``classes`` are classes and translator functions; ``sources`` gives, for each, the index of
    the place it comes from (0: built-in, then each user folder), default all 0."""

    def __init__(self, classes: list, sources: list[int] | None = None):
        self.ops: dict[str, type[Op]] = {}
        self.extractors: dict[tuple[str, str], type[Extractor]] = {}
        self.translators: dict[tuple[str, str], Callable] = {}
        self.loaders: dict[str, type[Loader]] = {}
        self._transforms: dict[str, type[Transform]] = {}
        self._order: dict[str, int] = {}
        self._source: dict[tuple, int] = {}
        for cls, source in zip(classes, sources or [0] * len(classes)):
            if not inspect.isclass(cls):
                for framework, op_types in translator_keys(cls):
                    for t in op_types:
                        self._replacing("translator", f"{framework} {t}", self.translators.get((framework, t)),
                                        cls, self._source.get(("translator", framework, t)), source)
                        if self._source.get(("translator", framework, t), -1) < \
                                self._source.get(("extractor", framework, t), -1):     # the extractor decided
                            self._replacing("translator", f"{framework} {t}", self.extractors.get((framework, t)),
                                            cls, self._source.get(("extractor", framework, t)), source, "extractor")
                        self.translators[(framework, t)] = cls
                        self._source[("translator", framework, t)] = source
            elif issubclass(cls, Op):
                self._replacing("op", cls.op, self.ops.get(cls.op), cls, self._source.get(("op", cls.op)), source)
                self.ops[cls.op] = cls
                self._source[("op", cls.op)] = source
            elif issubclass(cls, Extractor):
                for t in cls.op_types:
                    key = ("extractor", cls.framework, t)
                    self._replacing("extractor", f"{cls.framework} {t}", self.extractors.get((cls.framework, t)),
                                    cls, self._source.get(key), source)
                    if self._source.get(key, -1) < self._source.get(("translator", cls.framework, t), -1):
                        self._replacing("extractor", f"{cls.framework} {t}", self.translators.get((cls.framework, t)),
                                        cls, self._source.get(("translator", cls.framework, t)), source, "translator")
                    self.extractors[(cls.framework, t)] = cls
                    self._source[key] = source
            elif issubclass(cls, Loader):
                self.loaders[cls.framework] = cls
            elif issubclass(cls, Transform):
                key = ("transform", cls.__name__)
                self._replacing("transform", cls.__name__, self._transforms.get(cls.__name__), cls,
                                self._source.get(key), source)
                self._transforms[cls.__name__] = cls
                self._source[key] = source
                self._order.setdefault(cls.__name__, len(self._order))

    @staticmethod
    def _replacing(kind: str, key: str, old, new, old_source: int | None, source: int, old_kind: str = "") -> None:
        """Say when a later --extensions entry replaces what an earlier one (or the built-in
        package) registered: a warning between two user entries, which is easy to do by accident;
        a note (INFO) when a user's extension replaces a built-in one, as intended."""
        if old is None or old is new or old_source is None or old_source == source:
            return
        level = logging.INFO if old_source == 0 else logging.WARNING
        log.log(level, "The %s %s of %s replaces the %s of %s (a later --extensions entry wins)", kind, key,
                class_origin(new), old_kind or "one", class_origin(old))

    @classmethod
    def build(cls, extension_dirs: list[str] | None = None) -> "Registry":
        classes = builtin_classes()
        sources = [0] * len(classes)
        for index, folder in enumerate(extension_dirs or [], start=1):
            for module in _user_modules(folder):
                found = _classes(module)
                classes.extend(found)
                sources.extend([index] * len(found))
        return cls(classes, sources)

    def op(self, name: str) -> type[Op]:
        try:
            return self.ops[name]
        except KeyError:
            raise KeyError(f"no Op class is registered for op '{name}'") from None

    def extractor(self, framework: str, op_type: str, domain: str = "") -> type[Extractor] | None:
        return self.extractors.get((framework, op_key(op_type, domain)))

    def translator(self, framework: str, op_type: str, domain: str = "") -> Callable | None:
        """The translator of a framework op type, unless an extractor for it comes from a later
        extensions folder than the translator (then that extractor decides)."""
        key = op_key(op_type, domain)
        fn = self.translators.get((framework, key))
        if fn is None:
            return None
        if self._source.get(("extractor", framework, key), -1) > self._source[("translator", framework, key)]:
            return None
        return fn

    def framework_op_types(self, framework: str) -> list[str]:
        """Op types of ``framework`` an extractor or a translator handles (ONNX types of other
        domains as ``domain::Type``), sorted case-insensitively."""
        keys = {t for fw, t in [*self.extractors, *self.translators] if fw == framework}
        return sorted(keys, key=lambda t: (t.lower(), t))

    def handles(self, framework: str, op_type: str, domain: str = "") -> bool:
        """Whether an extractor or a translator is registered for the framework op type."""
        return (self.extractor(framework, op_type, domain) is not None
                or self.translator(framework, op_type, domain) is not None)

    def transform_classes(self) -> list[type[Transform]]:
        """Every registered transform class (enabled or not), in registration order."""
        return list(self._transforms.values())

    def transforms(self, phase: str, framework: str | None = None) -> list[Transform]:
        """Enabled transforms of ``phase`` for ``framework`` in run order."""
        assert phase in PHASES
        chosen = {name: c for name, c in self._transforms.items()
                  if c.phase == phase and c.enabled
                  and (c.frameworks is None or framework in c.frameworks)}
        instances = {name: c() for name, c in chosen.items()}
        order = nx.DiGraph()
        order.add_nodes_from(chosen)
        from mo.pipeline.anchors import ANCHORS
        start, finish = ANCHORS[phase]
        for name, inst in instances.items():
            if name in (start.__name__, finish.__name__):
                continue
            if start not in inst.run_before():
                order.add_edge(start.__name__, name)
            if finish not in inst.run_after():
                order.add_edge(name, finish.__name__)
        for name, inst in instances.items():
            for before in inst.run_after():
                if before.__name__ in chosen:
                    order.add_edge(before.__name__, name)
            for after in inst.run_before():
                if after.__name__ in chosen:
                    order.add_edge(name, after.__name__)
        try:
            names = list(nx.lexicographical_topological_sort(order, key=lambda n: self._order[n]))
        except nx.NetworkXUnfeasible:
            cycle = nx.find_cycle(order)
            where = ", ".join(f"{n} ({inspect.getsourcefile(chosen[n])})" for n, _ in cycle)
            raise ExtensionError(f"run_after/run_before of the {phase} transforms form a cycle: {where}") from None
        return [instances[n] for n in names]
