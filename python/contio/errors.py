"""The exceptions contio raises, grouped by subsystem.

Every error a user can cause carries a message that names what to fix. The CLI
maps `UsageError` (bad input) to exit code 2 and `ContioError` to exit code 1.
"""


class ContioError(Exception):
    """Base class of every error contio raises on purpose."""


class UsageError(ContioError):
    """Bad input from the user: a spec field, an option, a missing file. Exit code 2."""


class SpecError(UsageError):
    """A spec failed validation. `path` is the dotted field path."""

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class EngineNotFoundError(ContioError):
    """The `contio-engine` binary was not found. Lists where it looked."""

    def __init__(self, searched: list[str]):
        self.searched = searched
        places = "\n  ".join(searched)
        super().__init__(
            "contio-engine binary not found; searched:\n  "
            f"{places}\nInstall the package with `pip install .` (or run `make run`)."
        )


class EngineError(ContioError):
    """The engine exited with an error. `exit_code` 2 means bad input."""

    def __init__(self, message: str, exit_code: int):
        self.exit_code = exit_code
        super().__init__(message)
