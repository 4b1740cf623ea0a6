"""The panel's requests and responses (pydantic): what the OpenAPI schema publishes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

Seat = Annotated[int, Field(ge=1, le=16, description="a player's seat, 1-based")]
Money = Annotated[int, Field(ge=0, le=1_000_000_000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- host commands -------------------------------------------------------------


class SelectCmd(_Strict):
    """Choose a question on behalf of the chooser (both omitted: the next one in order)."""

    type: Literal["select"]
    theme: Annotated[int, Field(ge=1, le=100)] | None = None
    price: Annotated[int, Field(ge=0, le=10_000_000)] | None = None


class ReadingStartCmd(_Strict):
    """Start, or resume, reading the question aloud."""

    type: Literal["reading_start"]


class ReadingEndCmd(_Strict):
    """The reading is over: the signal (the buttons open)."""

    type: Literal["reading_end"]


class JudgeCmd(_Strict):
    """The verdict on the answer being given (a question, a special question)."""

    type: Literal["judge"]
    verdict: Literal["correct", "wrong"]


class TimeoutCmd(_Strict):
    """End the question without an answer (no score change)."""

    type: Literal["timeout"]


class BidCmd(_Strict):
    """A bid on a stake question / auction (an all-in is a bid of the whole score)."""

    type: Literal["bid"]
    seat: Seat
    amount: Money


class PassCmd(_Strict):
    """A player leaves the bidding."""

    type: Literal["pass"]
    seat: Seat


class CatGiveCmd(_Strict):
    """Hand the cat in the bag to this player."""

    type: Literal["cat_give"]
    seat: Seat


class CatPictureCmd(_Strict):
    """The next picture of a picture-series cat is shown (TV-S-CAT-5)."""

    type: Literal["cat_picture"]


class BonusCmd(_Strict):
    """The player offered the 1995 bonus contest accepts it or declines (TV-H-1995-03)."""

    type: Literal["bonus"]
    accept: StrictBool


class CatPriceCmd(_Strict):
    """The cat's value."""

    type: Literal["cat_price"]
    price: Annotated[int, Field(ge=0, le=10_000_000)]


class FinalRemoveCmd(_Strict):
    """Remove a final theme (1-based); ``seat``, if given, must be the one whose turn it is."""

    type: Literal["final_remove"]
    theme: Annotated[int, Field(ge=1, le=20)]
    seat: Seat | None = None


class FinalStakeCmd(_Strict):
    """A finalist's hidden stake (``amount`` null: no stake handed in)."""

    type: Literal["final_stake"]
    seat: Seat
    amount: Money | None = None


class FinalJudgeCmd(_Strict):
    """The verdict on the next written final answer (``seat``, if given, must be next)."""

    type: Literal["final_judge"]
    verdict: Literal["correct", "wrong"]
    seat: Seat | None = None


class CorrectionCmd(_Strict):
    """Change a score by hand, with a reason (``delta`` is never 0: the journal refuses it)."""

    type: Literal["correction"]
    seat: Seat
    delta: Annotated[int, Field(ge=-10_000_000, le=10_000_000)]
    reason: Annotated[str, Field(min_length=1, max_length=200)]

    @field_validator("delta")
    @classmethod
    def _changes_the_score(cls, delta: int) -> int:
        if delta == 0:
            raise ValueError("a correction must change the score: delta must not be 0")
        return delta


class ObjectionCmd(_Strict):
    """An accepted objection: that player's wrong verdict on the last question becomes right."""

    type: Literal["objection"]
    seat: Seat


class UndoCmd(_Strict):
    """Undo the host command journaled on ``line`` (see the command log)."""

    type: Literal["undo"]
    line: Annotated[int, Field(ge=1, le=1_000_000_000)]


class PauseCmd(_Strict):
    """Pause the game on every panel (panel-level; not journaled)."""

    type: Literal["pause"]


class ResumeCmd(_Strict):
    """End the pause."""

    type: Literal["resume"]


Command = Annotated[
    SelectCmd
    | ReadingStartCmd
    | ReadingEndCmd
    | JudgeCmd
    | TimeoutCmd
    | BidCmd
    | PassCmd
    | CatGiveCmd
    | CatPriceCmd
    | BonusCmd
    | CatPictureCmd
    | FinalRemoveCmd
    | FinalStakeCmd
    | FinalJudgeCmd
    | CorrectionCmd
    | ObjectionCmd
    | UndoCmd
    | PauseCmd
    | ResumeCmd,
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
