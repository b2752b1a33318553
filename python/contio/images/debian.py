"""`contio/debian`: a Debian bookworm root file system from debootstrap, imported into Docker.

Every database image builds FROM this one, so no registry is ever needed. The
tarball is cached under ~/.cache/contio/images/, keyed by the recipe hash: a
rebuilt Docker engine (or `docker rmi`) re-imports it without running debootstrap.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

import docker

from contio.errors import ImageBuildError
from contio.images.recipe import Input, Recipe, build_log_path, cache_root, require_program
from contio.images.registry import register

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
SECURITY_MIRROR = "http://deb.debian.org/debian-security"

# Written into the root file system before it is packed: small images, no prompts.
APT_CONFIG = """\
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
DPkg::Options { "--force-confold"; };
"""
SOURCES = f"""\
deb {MIRROR} {SUITE} main
deb {MIRROR} {SUITE}-updates main
deb {SECURITY_MIRROR} {SUITE}-security main
"""
# docker import keeps only these image settings (Dockerfile instructions).
CHANGES = [
    "ENV LANG=C.UTF-8",
    "ENV DEBIAN_FRONTEND=noninteractive",
    'CMD ["/bin/bash"]',
]


@register
class DebianBase(Recipe):
    """debootstrap --variant=minbase bookworm, imported with `docker import`."""

    name = "debian"

    @property
    def tag(self) -> str:
        return f"contio/debian:{SUITE}"

    def dockerfile(self) -> str:
        # Not a Dockerfile: the text the recipe hash covers (the bootstrap and its tweaks).
        return "\n".join(
            [f"# debootstrap --variant=minbase {SUITE} {MIRROR}", APT_CONFIG, SOURCES, *CHANGES]
        )

    def inputs(self) -> dict[str, Input]:
        return {}

    def build_image(
        self, client: docker.DockerClient, inputs: dict[str, Input], image_labels: dict[str, str]
    ) -> str:
        tarball = self._tarball(image_labels)
        repository, tag = self.tag.split(":")
        changes = CHANGES + [f"LABEL {key}={value}" for key, value in image_labels.items()]
        client.api.import_image(src=str(tarball), repository=repository, tag=tag, changes=changes)
        return client.images.get(self.tag).id

    def _tarball(self, image_labels: dict[str, str]) -> Path:
        key = next(v for k, v in image_labels.items() if k.endswith("recipe-hash"))[:16]
        tarball = cache_root() / "images" / f"debian-{SUITE}-minbase-{key}.tar"
        if tarball.is_file():
            return tarball
        tarball.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=tarball.parent) as scratch:
            rootfs = Path(scratch) / "rootfs"
            _debootstrap(rootfs)
            (rootfs / "etc/apt/apt.conf.d/90contio").write_text(APT_CONFIG)
            (rootfs / "etc/apt/sources.list").write_text(SOURCES)
            partial = tarball.with_suffix(".partial")
            with tarfile.open(partial, "w") as archive:
                archive.add(rootfs, arcname=".")
            partial.rename(tarball)
        return tarball


def _debootstrap(rootfs: Path) -> None:
    require_program("debootstrap", "to make the Debian base image")
    log_path = build_log_path("debian")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log_path.open("w") as out:
        result = subprocess.run(
            ["debootstrap", "--variant=minbase", SUITE, str(rootfs), MIRROR],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if result.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-20:])
        raise ImageBuildError(
            f"debootstrap failed (exit {result.returncode}) after "
            f"{time.monotonic() - started:.0f}s; last lines of {log_path}:\n{tail}"
        )
    # debootstrap's apt lists and caches only make the image bigger.
    for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
        for path in (rootfs / leftover).glob("*"):
            if path.is_file():
                path.unlink()
