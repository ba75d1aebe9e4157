"""Where a registered class or function comes from, for messages: a user's --extensions folder
or the built-in package, and its file and line."""
from __future__ import annotations

import inspect

USER_PACKAGE_PREFIX = "mo_user_ext_"


def is_user_class(obj) -> bool:
    """Whether ``obj`` (a class or a translator function) comes from a user's --extensions folder."""
    return getattr(obj, "__module__", "").startswith(USER_PACKAGE_PREFIX)


def source_of(obj) -> str:
    """'path/to/file.py:line' of a class or function (through decorator wrappers)."""
    inner = inspect.unwrap(obj)
    try:
        return f"{inspect.getsourcefile(inner)}:{inspect.getsourcelines(inner)[1]}"
    except (TypeError, OSError):
        return inner.__module__


def class_origin(obj) -> str:
    """'Name (path/to/file.py:line)' of a class or function, for messages about an extension."""
    return f"{inspect.unwrap(obj).__name__} ({source_of(obj)})"
