"""The bytes of a ``content.xml`` → an XML tree, safely.

``content.xml`` is untrusted input, and XML is where a hostile file hides an
entity expansion bomb or an external reference. This module is the one place
those bytes meet a parser: they are decoded honouring a BOM or the declared
encoding, then parsed by defusedxml with ``forbid_dtd``, so a DTD
(``<!DOCTYPE``/``<!ENTITY``) is refused outright while the same characters
inside a question's text or a CDATA section are only text. Every problem
becomes :class:`~rules.packages.model.PackageError`. What the tree *means*
(the SIGame dialects) is :mod:`rules.packages.siq_content`'s job.
"""

from __future__ import annotations

import codecs
import re
from xml.etree import ElementTree as ET

from defusedxml import (  # type: ignore[import-untyped]
    DTDForbidden,
    EntitiesForbidden,
    ExternalReferenceForbidden,
)
from defusedxml.ElementTree import fromstring as safe_fromstring  # type: ignore[import-untyped]

from rules.packages.model import PackageError

_XML_DECL_ENCODING = re.compile(
    rb"""^<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})"""
)


def parse_xml(data: bytes, label: str) -> ET.Element:
    """The root element of an XML document; a DTD or broken XML is a :class:`PackageError`."""
    text = decode_xml(data, label)
    try:
        root: ET.Element = safe_fromstring(text, forbid_dtd=True)
    except (DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden) as e:
        raise PackageError(
            f"{label}: content.xml contains <!DOCTYPE>; SIGame packages never "
            "declare a DTD, and entities can hide an expansion bomb: refused"
        ) from e
    except ET.ParseError as e:
        raise PackageError(f"{label}: content.xml is not well-formed XML: {e}") from e
    except RecursionError as e:  # pragma: no cover - expat is iterative; belt and braces
        raise PackageError(f"{label}: content.xml is nested too deeply") from e
    return root


def decode_xml(data: bytes, label: str) -> str:
    """The text of an XML document, honouring a BOM or the declared encoding."""
    try:
        if data.startswith(codecs.BOM_UTF8):
            return data[len(codecs.BOM_UTF8) :].decode("utf-8")
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16")
        match = _XML_DECL_ENCODING.match(data)
        encoding = match.group(1).decode("ascii") if match else "utf-8"
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise PackageError(
                f"{label}: content.xml declares an unknown encoding {encoding!r}"
            ) from None
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise PackageError(
            f"{label}: content.xml is not valid text in its encoding ({e.reason} at byte {e.start})"
        ) from e
