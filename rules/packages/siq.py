"""SIGame ``.siq`` packages: the zip archive, with ``content.xml`` and media folders.

A package is untrusted input (anyone can hand the host a file), and this
module is the one that touches the file: it opens the zip, checks it, reads
``content.xml`` out of it for :mod:`rules.packages.siq_content` to map into
:mod:`rules.packages.model`, and reads media on demand. So here:

* a file that is not a zip, has no ``content.xml``, or whose ``content.xml``
  is larger than a limit (declared *and* actually read) is refused;
* an archive with an entry named with ``..``, an absolute path or a drive
  letter is refused outright (the rules: :mod:`rules.packages.siq_names`),
  and nothing is ever extracted: media are read by name on demand
  (:meth:`SiqArchive.read_media`), size-capped;
* a media file the package names but the archive lacks is a warning;
* every problem becomes :class:`~rules.packages.model.PackageError` naming the
  file and the place in it.

The XML itself (no DTD, no entities: :mod:`rules.packages.siq_xml`) and its
dialects (v5, v4, v3: :mod:`rules.packages.siq_content`) are read elsewhere.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from types import TracebackType
from typing import Final
from urllib.parse import unquote

from rules.packages.model import (
    MAX_MEDIA_BYTES,
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PackageSource,
)
from rules.packages.siq_content import cap_warnings, parse_content_xml
from rules.packages.siq_names import check_media_name, unsafe_entry_name

#: The largest ``content.xml`` accepted, uncompressed. Real packages are well
#: under 1 MB of XML; the limit stops a zip bomb before it is inflated.
MAX_XML_BYTES: Final = 20 * 1024 * 1024
#: The most entries an archive may have (a package has a few hundred at most).
MAX_ENTRIES: Final = 100_000

#: The folder SIGame keeps each kind of media in.
MEDIA_FOLDERS: Final = {
    MediaKind.IMAGE: "Images",
    MediaKind.AUDIO: "Audio",
    MediaKind.VIDEO: "Video",
    MediaKind.HTML: "Html",
}

# What zipfile and zlib raise on a broken or hostile archive.
_ZIP_ERRORS: Final = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    OverflowError,
    struct.error,
    zlib.error,
    RuntimeError,  # an encrypted entry
    NotImplementedError,  # an unsupported compression method
)


def load_siq(path: str | os.PathLike[str], *, max_xml_bytes: int = MAX_XML_BYTES) -> Package:
    """Read a ``.siq`` file into a :class:`Package` (media stay in the archive).

    Raises :class:`PackageError` for anything that is not a playable package.
    """
    with SiqArchive(path, max_xml_bytes=max_xml_bytes) as archive:
        return archive.package


def read_media(
    path: str | os.PathLike[str],
    media: MediaRef | str,
    kind: MediaKind | None = None,
    *,
    max_bytes: int = MAX_MEDIA_BYTES,
) -> bytes:
    """The bytes of one media file of a ``.siq`` (see :meth:`SiqArchive.read_media`)."""
    with SiqArchive(path, parse=False) as archive:
        return archive.read_media(media, kind, max_bytes=max_bytes)


class SiqArchive:
    """An open ``.siq``: its :attr:`package` and its media, read on demand.

    Use as a context manager; the zip stays open until :meth:`close`. The
    archive is checked on opening (entry count, unsafe entry names), and
    ``content.xml`` is parsed unless ``parse=False`` (for media only).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_xml_bytes: int = MAX_XML_BYTES,
        parse: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        self._label = self.path
        self._zip = self._open()
        try:
            self._by_key: dict[tuple[str, str], zipfile.ZipInfo] = {}
            self._check_entries()
            self._package: Package | None = None
            if parse:
                self._package = self._load(max_xml_bytes)
        except BaseException:
            self._zip.close()
            raise

    def __enter__(self) -> SiqArchive:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()

    @property
    def package(self) -> Package:
        if self._package is None:
            raise PackageError(f"{self._label}: opened for media only (parse=False)")
        return self._package

    def read_media(
        self,
        media: MediaRef | str,
        kind: MediaKind | None = None,
        *,
        max_bytes: int = MAX_MEDIA_BYTES,
    ) -> bytes:
        """The bytes of a media file named by the package.

        ``media`` is a :class:`MediaRef` (its kind picks the folder) or a bare
        file name (then ``kind``, or every media folder in turn). Names are
        matched percent-decoded on both sides, since SIGame writes
        ``a%20b.jpg`` into the zip for ``a b.jpg`` in the XML. A name with a
        path in it is refused; nothing outside the media folders is readable.
        """
        if isinstance(media, MediaRef):
            if media.name is None:
                raise PackageError(
                    f"{self._label}: this {media.kind.value} is inline content, not a file"
                )
            name, kind = media.name, media.kind
        else:
            name = media
        check_media_name(name, self._label)
        info = self._find_media(name, kind)
        if info is None:
            where = MEDIA_FOLDERS[kind] if kind else "/".join(MEDIA_FOLDERS.values())
            raise PackageError(f"{self._label}: media file {name!r} is not in {where}/")
        return self._read(info, max_bytes, f"media file {name!r}")

    def has_media(self, media: MediaRef) -> bool:
        """Whether a referenced file is present (False for inline content or an unsafe name)."""
        if media.name is None:
            return False
        try:
            check_media_name(media.name, self._label)
        except PackageError:
            return False
        return self._find_media(media.name, media.kind) is not None

    # -- internals ---------------------------------------------------------

    def _open(self) -> zipfile.ZipFile:
        label = self._label
        try:
            if not os.path.isfile(self.path):
                if os.path.exists(self.path):
                    raise PackageError(f"{label}: not a file")
                raise PackageError(f"{label}: no such file")
            return zipfile.ZipFile(self.path)
        except PackageError:
            raise
        except zipfile.BadZipFile as e:
            raise PackageError(
                f"{label}: not a SIGame package: not a zip archive ({e}); a .siq file is a "
                "zip with content.xml inside"
            ) from e
        except OSError as e:
            raise PackageError(f"{label}: cannot read the file: {e.strerror or e}") from e
        except _ZIP_ERRORS as e:
            raise PackageError(f"{label}: a broken zip archive: {e}") from e

    def _check_entries(self) -> None:
        infos = self._zip.infolist()
        if len(infos) > MAX_ENTRIES:
            raise PackageError(
                f"{self._label}: the archive has {len(infos)} entries, over the limit of "
                f"{MAX_ENTRIES}; not a question package"
            )
        for info in infos:
            raw = info.filename
            for name in (raw, unquote(raw)):
                if unsafe_entry_name(name):
                    raise PackageError(
                        f"{self._label}: the archive contains an unsafe entry name {raw!r} "
                        "(a path going outside the package); refusing the whole package"
                    )
            if info.is_dir():
                continue
            folder, _, base = raw.replace("\\", "/").rpartition("/")
            folder = folder.lower()
            self._by_key.setdefault((folder, base), info)
            self._by_key.setdefault((folder, unquote(base)), info)

    def _find_media(self, name: str, kind: MediaKind | None) -> zipfile.ZipInfo | None:
        folders = [MEDIA_FOLDERS[kind]] if kind else list(MEDIA_FOLDERS.values())
        for folder in folders:
            for candidate in (name, unquote(name)):
                info = self._by_key.get((folder.lower(), candidate))
                if info is not None:
                    return info
        return None

    def _read(self, info: zipfile.ZipInfo, limit: int, what: str) -> bytes:
        if info.file_size > limit:
            raise PackageError(
                f"{self._label}: {what} is {info.file_size} bytes uncompressed, over the "
                f"limit of {limit}"
            )
        try:
            with self._zip.open(info) as stream:
                data = stream.read(limit + 1)
        except NotImplementedError as e:  # before RuntimeError, its base class
            raise PackageError(f"{self._label}: {what} uses an unsupported compression: {e}") from e
        except RuntimeError as e:
            raise PackageError(f"{self._label}: {what} is encrypted: {e}") from e
        except _ZIP_ERRORS as e:
            raise PackageError(f"{self._label}: {what} is damaged in the archive: {e}") from e
        if len(data) > limit:
            raise PackageError(f"{self._label}: {what} is larger than the limit of {limit} bytes")
        return data

    def _load(self, max_xml_bytes: int) -> Package:
        contents = [i for i in self._zip.infolist() if i.filename == "content.xml"]
        if not contents:
            names = ", ".join(repr(i.filename) for i in self._zip.infolist()[:5]) or "none"
            raise PackageError(
                f"{self._label}: not a SIGame package: no content.xml in the archive "
                f"(entries: {names})"
            )
        if len(contents) > 1:
            raise PackageError(f"{self._label}: the archive has content.xml twice")
        data = self._read(contents[0], max_xml_bytes, "content.xml")
        # Labelled by the path, as the archive's own errors are (self._label).
        package = parse_content_xml(data, path=self.path)
        missing: list[str] = []
        for ref in _media_refs(package):
            if ref.name is not None and not self.has_media(ref):
                text = f"media file {ref.name!r} ({ref.kind.value}) is not in the archive"
                if text not in missing:
                    missing.append(text)
        if not missing:
            return package
        warnings = cap_warnings(list(package.source.warnings) + missing)
        source = PackageSource(
            package.source.format, package.source.path, package.source.version, warnings
        )
        return Package(package.name, package.rounds, source)


def _media_refs(package: Package) -> list[MediaRef]:
    return [
        ref
        for r in package.rounds
        for t in r.themes
        for q in t.questions
        for ref in (*q.media, *q.answer_media)
    ]
