"""The exceptions contio raises, grouped by subsystem.

Every error a user can cause carries a message that names what to fix. The CLI
maps `UsageError` (bad input) to exit code 2 and `ContioError` to exit code 1
(`contio.exit_codes`). Every exception that can reach a user is defined here; the few
defined beside their code never leave it (a parser's or a sampler's signal to its
caller: `InputFileProblem`, `TraceUnavailable`, `ContainerGone`, the HTTP API's
`_BadRequest`, the YAML loader's own errors).
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


class InvalidSpecError(UsageError):
    """A spec failed validation. `problems` holds one `SpecError` per bad field."""

    def __init__(self, source: str, problems: list[SpecError]):
        self.source = source
        self.problems = problems
        lines = "\n  ".join(str(p) for p in problems)
        super().__init__(f"invalid spec {source}:\n  {lines}")

    @property
    def path(self) -> str:
        """The dotted path of the first bad field."""
        return self.problems[0].path if self.problems else ""


class EngineUsageError(UsageError):
    """The engine refused its input (exit code 2); the message is the engine's own."""


class WorkloadPropertyError(UsageError):
    """YCSB properties that contio refuses before the engine runs them (a load that
    would never end). The message names the properties and the fix."""


class FileWorkloadError(UsageError, ValueError):
    """A file I/O workload entry (sysbench, fio) or a stop rule it cannot run with.
    The message names the key and the allowed values."""


class EngineOutputError(ContioError):
    """The engine's result document is missing or does not follow its schema."""


class BackendError(ContioError):
    """A storage backend could not prepare, describe or tear down its storage."""


class ResultsFolderError(ContioError):
    """The results folder could not be created or written."""


class ResultsRootError(UsageError):
    """The place asked for results (`--results-dir`) cannot hold a results folder: a file,
    not writable, read-only, or a kernel file system (/proc, /sys). Names the place."""

    def __init__(self, root: object, problem: str):
        self.root = root
        super().__init__(
            f"--results-dir {root}: {problem}; give a folder on a disk you can write to"
        )


class DamagedResultsError(UsageError):
    """A results folder's file is damaged (an index that is not a database, fails
    SQLite's integrity check or lacks its tables). Names the file."""

    def __init__(self, path: object, problem: str):
        self.path = path
        super().__init__(
            f"{path}: {problem}; contio cannot read this results folder (repetitions.csv "
            "and raw/ beside it still hold the measured phases: restore the index from a copy)"
        )


class OutputFileError(UsageError):
    """A report or an export could not be written where it was asked to go. Names the file."""

    def __init__(self, path: object, problem: str):
        self.path = path
        super().__init__(f"cannot write {path}: {problem}")


class BackendOptionError(UsageError):
    """A backend option is unknown or has a bad value. Names the option and what is allowed."""

    def __init__(self, backend: str, option: str, message: str):
        self.backend = backend
        self.option = option
        self.problem = message
        where = f"backend '{backend}' option '{option}'" if option else f"backend '{backend}'"
        super().__init__(f"{where}: {message}")


class BackendUnavailableError(BackendError):
    """This host lacks what a backend needs (a kernel feature, a program); says which."""


class CommandError(BackendError):
    """An external storage command (mkfs, mount, gluster, ip …) failed."""

    def __init__(self, argv: list[str], returncode: int, output: str):
        self.argv = argv
        self.returncode = returncode
        self.output = output.strip()
        super().__init__(f"`{' '.join(argv)}` failed ({returncode}): {self.output[-2000:]}")


class ClusterError(BackendError):
    """A GlusterFS cluster could not be built, reached, changed or removed."""


class ClusterConfigError(ClusterError, UsageError):
    """`contio cluster` was asked for what cannot be: a cluster that is not up, a name
    that is taken, a subnet that overlaps one in use. Exit code 2."""


class RuntimeUnavailableError(ContioError):
    """A runtime the spec demands (for example `runtime: docker`) cannot be reached."""


class RuntimeRequiredError(UsageError):
    """A spec's cells need a runtime this host cannot give them (no Docker engine answers
    and none can be started, or their images cannot be had). Names the spec field and
    the cause; raised before anything is provisioned (exit code 2)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class ImageBuildError(ContioError):
    """An image recipe failed to build. The message carries the failing step's output."""


class RecipeInputsUnavailable(ImageBuildError):
    """A recipe's inputs cannot be had on this host (for the engine image: no static engine
    installed and no source tree to build one). An image the recipe built before is reused."""


class TargetNotReadyError(ContioError):
    """A database container did not become ready in time. Carries its last log lines."""


class CellFailed(ContioError):
    """Ends one cell early (a phase failed, a database died or never got ready); its
    message is the reason recorded with the cell. The experiment goes on with the next."""


class StatisticsInputError(UsageError, ValueError):
    """A statistic was asked of data it cannot use. `field` names the argument."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class QosConfigError(UsageError):
    """A block I/O control has a bad value. Names the field and what is allowed."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class QosError(ContioError):
    """A block I/O control could not be applied or removed (cgroup, device, scheduler)."""


class MiddlewareError(ContioError):
    """The I/O middleware (coordinator or node agent) could not do what was asked."""


class AuthError(MiddlewareError):
    """A middleware request was not signed with the cluster's secret (or too long ago)."""


class CoordinatorUnreachable(MiddlewareError):
    """No coordinator answered at the address the node agent or the CLI was given."""


class MiddlewareNotUp(MiddlewareError, UsageError):
    """`contio qos …` on a cluster whose middleware is not up (exit code 2: run
    `contio qos up` first)."""


class MiddlewareLost(CellFailed):
    """The coordinator or a node agent of a run's middleware died or stopped answering:
    the cells that need it fail, with what was lost and what to run to clean up; the
    run goes on with the others."""


class FigureDataError(UsageError, ValueError):
    """A chart was given a DataFrame without the columns or rows it needs. Names the chart."""

    def __init__(self, chart: str, message: str):
        self.chart = chart
        super().__init__(f"{chart}: {message}")


class Interrupted(ContioError):
    """A SIGINT or SIGTERM arrived; raised so `finally` blocks clean up and results are kept."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by signal {signum}")


class AgentsDidNotReport(MiddlewareError, UsageError):
    """`contio qos up`: an agent did not reach the coordinator in time (exit 2: the nodes
    or the network need fixing before the middleware can run)."""


class NodeUnreachable(MiddlewareError, UsageError):
    """`contio qos up --inventory`: a node does not run contio over SSH (exit 2, before
    anything was started anywhere)."""


class CalibrationError(UsageError):
    """A calibration file that cannot be used (exit 2): unreadable, not JSON, another
    schema version, or a field that fails its check."""


class ProfileError(UsageError):
    """A profile file that cannot be used (exit code 2): unreadable, not JSON, another
    schema version, or a field that fails its check."""


class ProfilesDisagree(UsageError):
    """Profiles whose specs cannot run as one experiment (exit 2)."""


class WaitTimeout(ContioError):
    """Something contio waited for did not happen in time (`contio.host.waiting`)."""

    def __init__(self, what: str, timeout: float):
        self.what = what
        self.timeout = timeout
        super().__init__(f"gave up waiting for {what} after {timeout:g} s")
