"""What a spec's docker cells need before anything runs: a reachable Docker engine and
their images.

`contio run` calls `prepare_docker`: it reaches the engine (`ensure_engine`: as root it
installs docker.io and starts dockerd when missing; never for a remote `DOCKER_HOST`),
builds or reuses `contio/engine` (the clients) and each database target's offline image,
or pulls the registry image a target's `target_options.image` names. `contio plan` calls
`plan_docker`, which reaches the engine and says which images are there, building
nothing. Either raises `RuntimeRequiredError` (exit code 2) naming the spec field that
asks for Docker and the cause, before any backend is provisioned. Specs without docker
cells never touch Docker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import docker
import docker.errors

from contio.containers import labels
from contio.containers.docker_engine import LOCAL_SOCKET, ensure_engine
from contio.containers.sweep import remove_experiment
from contio.errors import ImageBuildError, RuntimeRequiredError, RuntimeUnavailableError
from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.images import registry as image_registry
from contio.images.build import build
from contio.targets import registry as target_registry
from contio.targets.base import CacheMode, TargetOptions

DOCKER = "docker"
ENGINE_RECIPE = "engine"
HOLD_ROLE = "image-hold"
Echo = Callable[[str], None]


@dataclass
class DockerSetup:
    """The engine and images of an experiment's docker cells."""

    client: docker.DockerClient
    engine_image: str
    """The id of `contio/engine` (by id: a rebuild elsewhere cannot swap it mid-run)."""
    images: dict[str, str] = field(default_factory=dict)
    """Database target → the id of its image (contio's build, or the registry image pulled)."""

    def describe(self) -> dict[str, object]:
        """The engine and images a run used (kept in the results index)."""
        version = self.client.version()
        return {
            "docker_version": version.get("Version"),
            "api_version": version.get("ApiVersion"),
            "engine_image": self.engine_image,
            "images": dict(self.images),
        }

    def target_options(self, spec: ExperimentSpec) -> dict[str, TargetOptions]:
        """How to run each database target of the spec (`contio.targets.base`)."""
        found = {}
        for target, image in self.images.items():
            options = spec.target_options_for(target)
            found[target] = TargetOptions(
                cache=CacheMode(options.cache),
                mem_limit=options.memory_limit,
                image=options.image,  # the family: None is contio's offline image
                image_id=image,
                ready_timeout_s=spec.runtime.ready_timeout_seconds,
            )
        return found


def docker_cells(cells: Sequence[Cell]) -> list[Cell]:
    """The cells that run under the docker runtime."""
    return [c for c in cells if c.level.get("runtime") == DOCKER]


def runtime_field(spec: ExperimentSpec) -> str:
    """The spec field that asks for Docker (for messages)."""
    levels = spec.factors.runtime or []
    return f"factors.runtime[{levels.index(DOCKER)}]" if DOCKER in levels else "runtime.type"


def database_targets(cells: Sequence[Cell]) -> list[str]:
    """Database targets the cells run, in first-use order."""
    return list(dict.fromkeys(m.target for c in cells for m in c.members if m.database))


def connect(spec: ExperimentSpec) -> docker.DockerClient:
    """A client of a reachable engine (started when allowed), or `RuntimeRequiredError`."""
    try:
        return ensure_engine()
    except RuntimeUnavailableError as exc:
        raise RuntimeRequiredError(
            runtime_field(spec), f"'docker' needs a Docker engine, and none can be had: {exc}"
        ) from None


def _recipe_of(target: str) -> str | None:
    """The offline image recipe of a database target (None: it has none, a registry image
    must be named)."""
    return getattr(target_registry.target(target), "recipe", None)


def _check_images(spec: ExperimentSpec, targets: Sequence[str]) -> None:
    for target in targets:
        if _recipe_of(target) is None and _registry_image(spec, target) is None:
            raise RuntimeRequiredError(
                f"target_options.{target}.image",
                f"{target!r} has no offline image: name a registry image for it",
            )


def _registry_image(spec: ExperimentSpec, target: str) -> str | None:
    return spec.target_options_for(target).image


def prepare_docker(
    spec: ExperimentSpec, cells: Sequence[Cell], experiment: str, echo: Echo | None = None
) -> DockerSetup | None:
    """Reach the engine and build, reuse or pull every image the docker cells need, each
    held for the run (`hold_image`) under the `experiment` label.

    None when no cell runs under docker. `echo` tells the user what is being prepared.
    """
    wanted = docker_cells(cells)
    if not wanted:
        return None
    targets = database_targets(wanted)
    _check_images(spec, targets)
    client = connect(spec)
    say = echo or (lambda _: None)
    try:
        for attempt in (1, 2):
            setup = _images(client, spec, targets, say)
            try:
                for name, image in [(ENGINE_RECIPE, setup.engine_image), *setup.images.items()]:
                    hold_image(client, experiment, name, image)
                return setup
            except docker.errors.ImageNotFound:
                # Another build removed what it replaced between our build and the hold.
                remove_experiment(client, experiment)
                if attempt == 2:
                    raise
    except BaseException:
        remove_experiment(client, experiment)
        client.close()
        raise
    raise AssertionError("unreachable")


def _images(
    client: docker.DockerClient, spec: ExperimentSpec, targets: Sequence[str], say: Echo
) -> DockerSetup:
    references = {t: _registry_image(spec, t) for t in targets}
    # A target without a registry image has a recipe: the spec checks refused it otherwise.
    offline = {t: r for t in targets if references[t] is None and (r := _recipe_of(t))}
    recipes = [ENGINE_RECIPE, *offline.values()]
    say(
        f"docker: images for {', '.join(map(str, recipes))} (reused while their recipes are "
        "unchanged; a database image can take minutes the first time)"
    )

    def progress(name: str) -> None:
        say(f"building image {name} …")

    try:
        built = {r.name: r.image_id for r in build(client, recipes, progress=progress)}
    except ImageBuildError as exc:
        raise RuntimeRequiredError(
            runtime_field(spec), f"the images of the docker cells cannot be built: {exc}"
        ) from None
    images = {}
    for target in targets:
        reference = references[target]
        images[target] = (
            _pull(client, spec, target, reference, say) if reference else built[offline[target]]
        )
    return DockerSetup(client, built[ENGINE_RECIPE], images)


def hold_image(client: docker.DockerClient, experiment: str, name: str, image: str) -> None:
    """Keep `image` on the engine for the run: a created (never started) container of it,
    labelled with the experiment. A rebuild elsewhere (another checkout's `contio/engine`)
    then cannot remove the image the run uses by id (Docker refuses to remove an image a
    container refers to); the run's teardown removes the container."""
    client.containers.create(
        image,
        command=["contio-hold"],
        name=f"contio-{experiment}-hold-{name}",
        labels=labels.resource_labels(experiment, HOLD_ROLE, labels.Owner.current()),
        network_disabled=True,
    )


def _pull(
    client: docker.DockerClient, spec: ExperimentSpec, target: str, reference: str, say: Echo
) -> str:
    try:
        return client.images.get(reference).id
    except docker.errors.ImageNotFound:
        pass
    say(f"pulling image {reference} for {target} …")
    try:
        return client.images.pull(reference).id
    except docker.errors.APIError as exc:
        raise RuntimeRequiredError(
            f"target_options.{target}.image",
            f"{reference!r} is not on this host and cannot be pulled: {exc.explanation or exc}",
        ) from None


@dataclass(frozen=True)
class DockerPlan:
    """What `contio plan` says about the docker cells: the engine and each image."""

    engine: str
    """The engine's version and where it answers."""
    images: list[tuple[str, str]]
    """(image, state): `present`, or what the run will do to get it."""


def plan_docker(spec: ExperimentSpec, cells: Sequence[Cell]) -> DockerPlan | None:
    """Reach the engine (exit code 2 when none can be had) and look up the images the
    docker cells need, building nothing. None when no cell runs under docker."""
    wanted = docker_cells(cells)
    if not wanted:
        return None
    _check_images(spec, database_targets(wanted))
    client = connect(spec)
    try:
        version = client.version().get("Version", "?")
        engine = f"Docker {version} at {os.environ.get('DOCKER_HOST') or LOCAL_SOCKET}"
        images = []
        refs = [(image_registry.recipe(ENGINE_RECIPE).tag, True)]
        for target in database_targets(wanted):
            reference = _registry_image(spec, target)
            if reference:
                refs.append((reference, False))
            else:
                refs.append((image_registry.recipe(str(_recipe_of(target))).tag, True))
        for reference, offline in dict.fromkeys(refs):
            images.append((reference, _state(client, reference, offline)))
    finally:
        client.close()
    return DockerPlan(engine, images)


def _state(client: docker.DockerClient, reference: str, offline: bool) -> str:
    try:
        client.images.get(reference)
    except docker.errors.ImageNotFound:
        return "missing: built at the start of the run" if offline else "missing: pulled"
    return "present (rebuilt if its recipe changed)" if offline else "present"
