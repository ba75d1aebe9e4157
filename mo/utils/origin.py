"""Where a registered class or function comes from, for messages: a user's --extensions folder
or the built-in package, and its file and line."""
from __future__ import annotations

import ast
import inspect

USER_PACKAGE_PREFIX = "mo_user_ext_"


def is_user_class(obj) -> bool:
    """Whether ``obj`` (a class or a translator function) comes from a user's --extensions folder."""
    return getattr(obj, "__module__", "").startswith(USER_PACKAGE_PREFIX)


def source_of(obj) -> str:
    """'path/to/file.py:line' of a class or function (through decorator wrappers); a class made
    by a factory (``Erf = _unary("Erf", ...)``) is found at the module-level assignment of its
    name."""
    inner = inspect.unwrap(obj)
    try:
        path = inspect.getsourcefile(inner)
    except TypeError:
        return inner.__module__
    try:
        return f"{path}:{inspect.getsourcelines(inner)[1]}"
    except (TypeError, OSError):
        line = _assignment_line(path, getattr(inner, "__name__", ""))
        return f"{path}:{line}" if line else inner.__module__


def _assignment_line(path: str | None, name: str) -> int | None:
    """The line of the module-level statement of ``path`` that assigns ``name``."""
    if not path or not name:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            return statement.lineno
    return None


def class_origin(obj) -> str:
    """'Name (path/to/file.py:line)' of a class or function, for messages about an extension."""
    return f"{inspect.unwrap(obj).__name__} ({source_of(obj)})"
