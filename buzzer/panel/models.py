"""The panel's requests and responses (pydantic): what the OpenAPI schema publishes.

The host commands' models are made from their declarations (their fields'
limits, buzzer/arbiter/commands.py): the API takes what the journal takes, and
a few values below it that the service refuses with the host's sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, create_model

from buzzer.arbiter.commands import (
    MAX_SEATS,
    CommandField,
    SeatNo,
    Text,
    Verdict,
    Whole,
    YesNo,
    fields_of,
)
from buzzer.arbiter.events import HOST_COMMANDS, HostInput

Seat = Annotated[int, Field(ge=1, le=MAX_SEATS, description="a player's seat, 1-based")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- host commands: made from their declarations (buzzer/arbiter/commands.py) --------


def _api_type(field: CommandField) -> Any:
    """What the API takes for one declared field (its JSON schema, its validation)."""
    kind = field.kind
    if isinstance(kind, SeatNo):
        return Seat
    if isinstance(kind, Verdict):
        return Literal["correct", "wrong"]
    if isinstance(kind, YesNo):
        return StrictBool
    if isinstance(kind, Text):
        return Annotated[str, Field(min_length=kind.api_min, max_length=kind.max_length)]
    assert isinstance(kind, Whole)
    low = kind.low if kind.api_low is None else kind.api_low
    number = Annotated[int, Field(ge=low, le=kind.high)]
    if kind.nonzero is None:
        return number
    why = kind.nonzero

    def nonzero(value: int) -> int:
        if value == 0:
            raise ValueError(f"{field.wire} must not be 0: {why}")
        return value

    return Annotated[number, AfterValidator(nonzero)]


def command_model(cls: type[HostInput]) -> type[BaseModel]:
    """The API's model of one host command: ``type`` and its declared fields (a field
    that may be None is optional, ``null`` or left out), its docstring the schema's."""
    fields: dict[str, Any] = {"type": (Literal.__getitem__(cls.TYPE), ...)}
    for field in fields_of(cls):
        api = _api_type(field)
        fields[field.wire] = (api | None, None) if field.optional else (api, ...)
    name = "".join(part.title() for part in cls.TYPE.split("_")) + "Cmd"
    return create_model(name, __base__=_Strict, __doc__=cls.__doc__, **fields)


#: Every host command's model, by its type, in the order declared.
COMMAND_MODELS: dict[str, type[BaseModel]] = {
    cls.TYPE: command_model(cls) for cls in HOST_COMMANDS
}

if TYPE_CHECKING:
    Command = BaseModel
else:
    Command = Annotated[
        Union[tuple(COMMAND_MODELS.values())],  # noqa: UP007 (a union made at run time)
        Field(discriminator="type"),
    ]


class CommandRequest(_Strict):
    """One host command: applied once per ``id`` (a repeated id returns the first result)."""

    id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=100,
            pattern=r"^[A-Za-z0-9_.:-]+$",
            description="the client's command id: a retry or a double tap repeats it",
        ),
    ]
    version: Annotated[int, Field(ge=0)] | None = Field(
        default=None,
        description="the snapshot version the command was made from: a 409 if the "
        "state has since moved on in a way that matters to it",
    )
    command: Command


class CommandResult(BaseModel):
    ok: bool = True
    id: str
    #: The journal line the controller assigned to the command (null: not journaled).
    line: int | None
    #: The controller's version after the command was submitted.
    version: int
    #: What the command decided at once (most host commands decide only when the
    #: settle window releases them: their effect arrives over the WebSocket).
    decisions: list[dict[str, Any]]
    paused: bool


class LoginRequest(_Strict):
    pin: Annotated[str, Field(min_length=1, max_length=32)]


class SessionInfo(BaseModel):
    host: bool


class PressRequest(_Strict):
    seat: Seat


class StuckRequest(_Strict):
    seat: Seat
    stuck: bool = True


class DismissRequest(_Strict):
    #: An alert's id, or null for every alert.
    id: Annotated[int, Field(ge=0)] | None = None


class ErrorDetail(BaseModel):
    code: str
    message: str
    message_en: str
    engine: str | None = None


class ErrorBody(BaseModel):
    detail: ErrorDetail


class StateBody(BaseModel):
    snapshot: dict[str, Any]
    panel: dict[str, Any]


class CommandLog(BaseModel):
    commands: list[dict[str, Any]]
