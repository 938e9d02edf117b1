"""The pure core imports no asyncio, sockets, zeroconf, clock or files (DESIGN.md)."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "p2p8s"
FORBIDDEN = {"asyncio", "socket", "zeroconf", "time", "selectors", "threading", "os",
             "pathlib", "shutil", "tempfile", "platformdirs", "click", "sys", "secrets"}
PURE = [p for p in PKG.rglob("*.py")
        if p.relative_to(PKG).parts[0] not in ("net", "store", "cli")]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PKG)))
def test_pure_core_has_no_io_imports(path: Path) -> None:
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path.relative_to(PKG)} imports {sorted(bad)}"


def test_the_check_sees_the_core() -> None:
    names = {str(p.relative_to(PKG)) for p in PURE}
    assert {"engine.py", "cards.py", "rules.py", "match.py"} <= names


# --- words out of the core (issue #10, deliverable 4) ------------------------------------
#
# Outside ``p2p8s/cli`` an error is raised with a ``Code`` and data, and an event carries
# enums, seats, cards and numbers: a str literal or f-string as an error's first argument
# (or in an event's text field) is a sentence made in the core. The scan imports every
# module and resolves each call's callee through the module's globals (falling back on the
# class name for names it cannot resolve: local imports, attributes of objects).

#: Modules that still make sentences in the core, as of the start of the redesign: each
#: is expected to fail the check (strict xfail) until it is converted, then must leave
#: this list. The redesign ends with it empty.
ALLOWLIST: frozenset[str] = frozenset()


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


OUTSIDE_CLI = sorted(_module_name(p) for p in PKG.rglob("*.py")
                     if p.relative_to(PKG).parts[0] != "cli")


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _import_all() -> None:
    """Import every module of p2p8s (so every class it defines exists)."""
    import p2p8s

    for info in pkgutil.walk_packages(p2p8s.__path__, "p2p8s."):
        importlib.import_module(info.name)


def _defined_in_p2p8s(cls: type) -> bool:
    """A class that the p2p8s module naming it holds under its qualified name (not one a
    doctest or a test made on the fly)."""
    found: object = sys.modules.get(cls.__module__) if cls.__module__.startswith(
        "p2p8s.") else None
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is cls


@dataclass(frozen=True, slots=True)
class Worded:
    """The classes the scan looks for: p2p8s's errors, and the table's events with the
    positions and names of their fields (none of which may be a sentence)."""

    errors: frozenset[type]
    events: dict[type, tuple[frozenset[int], frozenset[str]]]


def _worded() -> Worded:
    from p2p8s.errors import Error
    from p2p8s.table import events

    _import_all()
    errors = frozenset({Error, *(c for c in _subclasses(Error) if _defined_in_p2p8s(c))})
    texts: dict[type, tuple[frozenset[int], frozenset[str]]] = {}
    for cls in vars(events).values():  # the table's events carry codes and data only
        if (isinstance(cls, type) and dataclasses.is_dataclass(cls)
                and cls.__module__ == events.__name__):
            names = [f.name for f in dataclasses.fields(cls)]
            texts[cls] = (frozenset(range(len(names))), frozenset(names))
    return Worded(errors=errors, events=texts)


def _is_words(node: ast.expr) -> bool:
    """A sentence written here: a str literal or an f-string with a letter in its text,
    or one built from them (``+``, ``%``, ``.format``, a conditional of two)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(_is_words(v) for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _is_words(node.left) or _is_words(node.right)
    if isinstance(node, ast.IfExp):
        return _is_words(node.body) or _is_words(node.orelse)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        return _is_words(node.func.value)
    return False


def _resolve(node: ast.expr, scope: dict[str, object]) -> object:
    """The object a callee expression names in the module's globals (None if unknown)."""
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, scope)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _callee_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_super_init(call: ast.Call) -> bool:
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "__init__"
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super")


def sentences_in(source: str, scope: dict[str, object], worded: Worded) -> list[str]:
    """``line: callee`` for every call in ``source`` that builds an error of p2p8s with a
    sentence as its first argument (a ``super().__init__`` in an error class included), or
    a text event with a sentence in a text field; ``scope``: the module's globals."""
    by_name: dict[str, type] = {c.__name__: c for c in (*worded.errors, *worded.events)}
    found: list[str] = []

    def error_of(base: ast.expr) -> type | None:
        obj = _resolve(base, scope)
        name = _callee_name(base)
        if obj is None and name is not None:
            obj = by_name.get(name)
        return obj if isinstance(obj, type) and obj in worded.errors else None

    def check(call: ast.Call, cls: type, label: str) -> None:
        if cls in worded.events:
            positions, names = worded.events[cls]
            args = [a for i, a in enumerate(call.args) if i in positions]
            args += [k.value for k in call.keywords if k.arg in names]
        else:
            args = call.args[:1]
        if any(_is_words(a) for a in args):
            found.append(f"{call.lineno}: {label}")

    def visit(node: ast.AST, error_class: type | None) -> None:
        for child in ast.iter_child_nodes(node):
            inside = error_class
            if isinstance(child, ast.ClassDef):  # an error class: its super().__init__
                inside = next((b for b in map(error_of, child.bases) if b is not None), None)
            if isinstance(child, ast.Call):
                obj = _resolve(child.func, scope)
                name = _callee_name(child.func)
                if obj is None and name is not None:
                    obj = by_name.get(name)
                if isinstance(obj, type) and (obj in worded.errors or obj in worded.events):
                    check(child, obj, name or obj.__name__)
                elif error_class is not None and _is_super_init(child):
                    check(child, error_class, f"{error_class.__name__} super().__init__")
            visit(child, inside)

    visit(ast.parse(source), None)
    return found


@pytest.fixture(scope="module")
def worded() -> Worded:
    return _worded()


def _sentences_of(module: str, worded: Worded) -> list[str]:
    mod = importlib.import_module(module)
    path = Path(mod.__file__ or "")
    return sentences_in(path.read_text(), vars(mod), worded)


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.xfail(
        strict=True, reason="makes sentences in the core; remove it from ALLOWLIST once "
        "converted")) if m in ALLOWLIST else m
    for m in OUTSIDE_CLI])
def test_no_sentences_outside_the_cli(module: str, worded: Worded) -> None:
    found = _sentences_of(module, worded)
    assert not found, (f"{module} makes sentences (raise a Code with data; words live in "
                       f"p2p8s.cli.words): {found}")


def test_the_allowlist_names_modules_that_exist() -> None:
    assert not sorted(ALLOWLIST - set(OUTSIDE_CLI))


def test_the_sentence_scan_sees_errors_events_and_super_calls(worded: Worded) -> None:
    from p2p8s import errors
    from p2p8s.table import events

    assert {errors.Error, errors.LocalError, errors.RemoteError} <= worded.errors
    assert events.Info in worded.events
    scope: dict[str, object] = {"LocalError": errors.LocalError, "tev": events}
    source = '''
class Gone(LocalError):
    def __init__(self, seat):
        super().__init__(f"seat {seat} is gone")
def f(code, n):
    raise LocalError("no " + str(n))
def g(code, n):
    raise LocalError(code, n=n)
def h(seat):
    return [tev.Info(f"{seat} left"), tev.Fault(seat, "bad"), tev.Fault(seat, code),
            tev.Info(f"{seat}"), tev.Info("")]
def k():
    from p2p8s.errors import MalformedInput
    raise MalformedInput("a bad file: {}".format(1))
'''
    assert sentences_in(source, scope, worded) == [
        "4: LocalError super().__init__", "6: LocalError", "10: Info", "10: Fault",
        "14: MalformedInput"]


# --- every code has its words --------------------------------------------------------------

def _codes() -> list[type]:
    from p2p8s.errors import Code

    _import_all()
    return sorted((c for c in _subclasses(Code) if _defined_in_p2p8s(c)),
                  key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_every_code_of_p2p8s_has_words() -> None:
    from p2p8s.cli import words

    missing = {f"{c.__module__}.{c.__qualname__}": [m.value for m in words.missing(c)]
               for c in _codes()}
    assert not {k: v for k, v in missing.items() if v}, missing


def test_no_two_members_of_a_code_share_a_value() -> None:
    """A second member with a value already taken is only an alias of the first (Enum's
    rule): its words would silently be the first's (two branches once both added a
    ``STILL_TRYING`` line, one said for the other)."""
    aliases = {f"{c.__module__}.{c.__qualname__}": sorted(
        name for name, member in c.__members__.items() if member.name != name)
        for c in _codes()}
    assert not {k: v for k, v in aliases.items() if v}, aliases


def test_the_code_scan_finds_codes_only_where_p2p8s_defines_them() -> None:
    from p2p8s.errors import Code, LocalError
    from p2p8s.table.events import Info

    class Local(Code):  # made here: not one of p2p8s's codes
        X = "x"

    assert Local not in _codes()
    assert all(_defined_in_p2p8s(c) for c in _codes())
    assert _defined_in_p2p8s(LocalError) and _defined_in_p2p8s(Info)
    assert not _defined_in_p2p8s(Local)
