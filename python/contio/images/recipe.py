"""An image recipe: a Dockerfile plus its input files, identified by a hash of both.

The hash (Dockerfile text, every input's name and bytes, and the hashes of the images
it builds on) is stored as the image label `contio.recipe-hash`. `build()` is a no-op
while an image with the recipe's tag carries the same hash, so a second `make test`
reuses every image. Build contexts, downloads and logs live under ~/.cache/contio, never
in the clone. No registry is reachable: builds never pull, and a recipe's FROM names
only images that another recipe built.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors

from contio.containers import labels
from contio.errors import ImageBuildError

log = logging.getLogger(__name__)

# An input: literal bytes, or a file or directory on the host (copied into the context).
Input = bytes | Path


def cache_root() -> Path:
    """Where contio keeps downloads, build contexts and logs (CONTIO_CACHE overrides)."""
    return Path(os.environ.get("CONTIO_CACHE", Path.home() / ".cache" / "contio"))


def require_program(program: str, purpose: str) -> None:
    """Raise ImageBuildError naming `program` and what needs it, when it is not on PATH."""
    if shutil.which(program) is None:
        raise ImageBuildError(f"`{program}` not found on PATH; it is needed {purpose}")


def _hash_path(digest: hashlib._Hash, path: Path) -> None:
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file():
                digest.update(str(child.relative_to(path)).encode() + b"\0")
                digest.update(child.read_bytes())
    else:
        digest.update(path.read_bytes())


@dataclass(frozen=True)
class BuildResult:
    """One recipe's outcome: the image id, and whether it was built now or reused."""

    name: str
    tag: str
    image_id: str
    recipe_hash: str
    built: bool
    seconds: float
    checked: bool = True
    """False: reused without checking its recipe, whose inputs this host cannot provide."""


class Recipe(ABC):
    """One image. Subclasses give the Dockerfile and the inputs (fetching them when needed)."""

    #: short name used on the command line, e.g. "mariadb"
    name: str
    #: names of the recipes whose images this one is built FROM
    depends: tuple[str, ...] = ()

    @property
    def tag(self) -> str:
        """The image reference this recipe produces."""
        return f"contio/{self.name}:latest"

    @abstractmethod
    def dockerfile(self) -> str:
        """The Dockerfile text."""

    def inputs(self) -> dict[str, Input]:
        """Files of the build context other than the Dockerfile, fetched or built when missing.

        Fetching must be cached by the recipe itself (under `cache_root()`), so that
        asking again is quick.
        """
        return {}

    def recipe_hash(self, inputs: dict[str, Input], parent_hashes: dict[str, str]) -> str:
        """The hash of everything the image is made from."""
        digest = hashlib.sha256()
        digest.update(self.dockerfile().encode())
        for name in sorted(inputs):
            digest.update(b"\0input\0" + name.encode() + b"\0")
            value = inputs[name]
            if isinstance(value, bytes):
                digest.update(value)
            else:
                _hash_path(digest, value)
        digest.update(json.dumps(parent_hashes, sort_keys=True).encode())
        return digest.hexdigest()

    def build_image(
        self, client: docker.DockerClient, inputs: dict[str, Input], image_labels: dict[str, str]
    ) -> str:
        """Build the image from a fresh context directory; return its id."""
        context = cache_root() / "build" / self.name
        shutil.rmtree(context, ignore_errors=True)
        context.mkdir(parents=True)
        (context / "Dockerfile").write_text(self.dockerfile())
        for name, value in inputs.items():
            destination = context / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(value, bytes):
                destination.write_bytes(value)
            elif value.is_dir():
                # Hard links keep large inputs (Cassandra's jars) from being copied again.
                shutil.copytree(value, destination, copy_function=_link_or_copy)
            else:
                _link_or_copy(value, destination)
        return _docker_build(client, context, self.tag, image_labels, self.name)


def _link_or_copy(source: str | Path, destination: str | Path) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)
    # The Docker build copies the mode; inputs must be readable inside the image.
    os.chmod(destination, os.stat(destination).st_mode | 0o444)


def build_log_path(name: str) -> Path:
    """Where the output of the last build of recipe `name` is kept."""
    return cache_root() / "logs" / f"build-{name}.log"


def _docker_build(
    client: docker.DockerClient,
    context: Path,
    tag: str,
    image_labels: dict[str, str],
    name: str,
) -> str:
    log_path = build_log_path(name)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    image_id = None
    with log_path.open("w") as out:
        # pull=False: no registry is reachable; FROM names only locally built images.
        stream = client.api.build(
            path=str(context),
            tag=tag,
            labels=image_labels,
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
        )
        for chunk in stream:
            if "stream" in chunk:
                out.write(chunk["stream"])
            if "error" in chunk:
                out.write(chunk["error"] + "\n")
                out.flush()
                raise ImageBuildError(
                    f"building {tag} failed: {chunk['error'].strip()}\n"
                    f"last lines of {log_path}:\n{_tail(log_path)}"
                )
            if "aux" in chunk and "ID" in chunk["aux"]:
                image_id = chunk["aux"]["ID"]
    if image_id is None:
        image_id = client.images.get(tag).id
    return image_id


def _tail(path: Path, lines: int = 20) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def existing_image(client: docker.DockerClient, tag: str, recipe_hash: str) -> str | None:
    """The id of the image `tag` when it carries `recipe_hash`, else None."""
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    if (image.labels or {}).get(labels.RECIPE_HASH) == recipe_hash:
        return image.id
    return None


# A factory, so that registering a recipe does not fetch or compute anything.
RecipeFactory = Callable[[], Recipe]
