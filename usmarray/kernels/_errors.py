"""The kernel factory's own exception."""

from __future__ import annotations


class KernelSyntaxError(SyntaxError):
    """A kernel body that cannot be translated or compiled.

    ``source`` is the generated C source (None when translation failed before any
    was generated) and ``log`` the compiler's log (None when the compiler never ran)."""

    def __init__(self, msg: str, source: str | None = None, log: str | None = None) -> None:
        full = msg
        if source is not None:
            numbered = "\n".join(f"{n:4d}  {line}" for n, line in
                                 enumerate(source.splitlines(), 1))
            full += "\n--- generated source ---\n" + numbered
        if log is not None:
            full += "\n--- compiler log ---\n" + (log.strip() or "(empty)")
        super().__init__(full)
        self.source = source
        self.log = log
